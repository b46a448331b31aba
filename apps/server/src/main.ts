// First of all: the Node.js version check (scripts/node-check.mjs).
import "../../../scripts/node-check.mjs";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { buildApp } from "./app.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { openDatabase } from "./db/client.ts";
import { systemClock } from "./infra/clock.ts";
import { DEMO_ACCOUNTS, seedDemo, seedDemoDevice } from "./seed.ts";

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }

  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: path.join(config.DATA_DIR, "pglite"),
  });
  const app = await buildApp({ config, db: database.db });
  if (config.DEMO) await seedDemo(app.services.accounts);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, "shutting down");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, "shutdown failed");
      process.exit(1);
    }
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  await app.listen({ port: config.PORT, host: config.HOST });
  const mqttPort = await app.services.gateway.listenTcp(config.MQTT_PORT, config.HOST);
  if (config.DEMO) {
    const demo = await seedDemoDevice({
      db: database.db,
      clock: systemClock,
      accounts: app.services.accounts,
      devices: app.services.devices,
      dataDir: config.DATA_DIR,
    });
    // scripts/start.mjs reads this to run the simulated HMI as the demo device.
    const server = config.MQTT_URL ?? `mqtt://127.0.0.1:${mqttPort}`;
    const address = app.server.address();
    const httpPort = typeof address === "object" && address ? address.port : config.PORT;
    // Remote access: the simulated HMI is reached through the agent's tunnel on the HTTP port.
    const tunnel = `ws://127.0.0.1:${httpPort}/tunnel`;
    writeFileSync(
      path.join(config.DATA_DIR, "demo-agent.json"),
      JSON.stringify({
        server,
        tunnel,
        machineCode: demo.machineCode,
        deviceSecret: demo.deviceSecret,
      }),
      { mode: 0o600 },
    );
  }
  const url = config.PUBLIC_URL;
  const lines = [
    "",
    `  Keyway is running: ${url}`,
    `  Database: ${database.kind === "pglite" ? `embedded PGlite in ${config.DATA_DIR}` : "PostgreSQL"}`,
    `  E-mail: ${config.SMTP_URL ? "SMTP" : "local outbox (codes are printed in this log)"}; SMS: ${config.SMS_PROVIDER}`,
    `  API documentation: ${url}/apiDoc`,
    `  Push channel: ${url.replace(/^http/, "ws")}/ws, fan-out ${config.REDIS_URL ? "through Redis" : "in-process"}`,
    `  Device gateway: mqtt://localhost:${mqttPort} and ${url.replace(/^http/, "ws")}/mqtt`,
  ];
  if (config.DEMO) {
    lines.push(
      `  Demo login:    ${DEMO_ACCOUNTS.user.email} / ${DEMO_ACCOUNTS.user.password}`,
      `  Operator login: ${DEMO_ACCOUNTS.operator.email} / ${DEMO_ACCOUNTS.operator.password}`,
    );
  }
  console.log(`${lines.join("\n")}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
