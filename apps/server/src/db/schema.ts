/** Every module's tables, for drizzle-kit and the typed client. */
export * from "../modules/accounts/schema.ts";
export * from "../modules/notify/schema.ts";
export * from "../modules/verification/schema.ts";
