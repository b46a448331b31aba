export * from "./device.ts";
export * from "./push.ts";
