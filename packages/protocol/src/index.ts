export * from "./device.ts";
export * from "./mqttPackets.ts";
export * from "./push.ts";
export * from "./tunnel.ts";
