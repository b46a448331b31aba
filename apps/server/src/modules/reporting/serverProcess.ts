import { buildApp } from "../../app.ts";
import { testConfig } from "../../config.ts";
import { openDatabase } from "../../db/client.ts";

/**
 * The platform as its own process for the kill test (reportingProcess.test.ts): the whole
 * app on an embedded database directory, delivering reports on the system clock, trusting
 * the receiver's certificate. Argument: JSON {dataDir, ca, leaseMs}. Tells its parent
 * "ready"; SIGTERM stops it gracefully, SIGKILL is the crash under test.
 */
const args = JSON.parse(process.argv[2] ?? "{}") as {
  dataDir: string;
  ca: string;
  leaseMs: number;
};
const database = await openDatabase({ dataDir: args.dataDir });
const app = await buildApp({
  config: testConfig({ WEB_DIST: "/nonexistent" }),
  db: database.db,
  logger: false,
  sweepEveryMs: 0,
  iotCardPassEveryMs: 0,
  reporting: { pollMs: 200, ca: args.ca, leaseMs: args.leaseMs },
});
await app.ready();
process.send?.("ready");
process.on("SIGTERM", () => {
  void app
    .close()
    .then(() => database.close())
    .finally(() => process.exit(0));
});
