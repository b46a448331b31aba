/** Every module's tables, for drizzle-kit and the typed client. */

export * from "../modules/access/schema.ts";
export * from "../modules/accounts/schema.ts";
export * from "../modules/alarmPush/schema.ts";
export * from "../modules/alarms/schema.ts";
export * from "../modules/cameras/schema.ts";
export * from "../modules/devices/schema.ts";
export * from "../modules/enterprises/schema.ts";
export * from "../modules/iotCards/schema.ts";
export * from "../modules/location/schema.ts";
export * from "../modules/messages/schema.ts";
export * from "../modules/notify/schema.ts";
export * from "../modules/portal/schema.ts";
export * from "../modules/projects/schema.ts";
export * from "../modules/reporting/schema.ts";
export * from "../modules/verification/schema.ts";
export * from "../modules/visits/schema.ts";
