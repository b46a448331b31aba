export * from "./device.ts";
