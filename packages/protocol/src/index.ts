export * from "./device.ts";
export * from "./push.ts";
export * from "./tunnel.ts";
