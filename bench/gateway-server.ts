/**
 * The broker under test for `npm run bench -- gateway`, in a process of its own so that its
 * heap holds nothing of the other rounds: `--system bare` (Aedes with no Keyway logic) or
 * `keyway` (the server's gateway on PGlite, or on `--database` a PostgreSQL database).
 * Tells the parent its port once warmed up (one device connected and gone: modules' lazy
 * caches are not counted per device), then answers IPC: "heap" (JS heap after a forced GC,
 * for Keyway once every device shows online, and how many do) and "stored" (alarm rows).
 */
import { createServer } from "node:net";
import { parseArgs } from "node:util";
import { Aedes } from "aedes";
import { count, eq } from "drizzle-orm";
import { openDatabase } from "../apps/server/src/db/client.ts";
import { alarms } from "../apps/server/src/modules/alarms/schema.ts";
import { devices } from "../apps/server/src/modules/devices/schema.ts";
import { insertGatewayDevices, startGateway } from "./gateway.ts";
import { openDevice } from "./mqttDevices.ts";

const { values } = parseArgs({
  options: {
    system: { type: "string" },
    database: { type: "string" },
    devices: { type: "string" },
  },
});
const deviceCount = Number(values.devices);

async function startBare() {
  const broker = new Aedes();
  await broker.listen();
  const server = createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    allOnline: async () => 0,
    stored: async () => 0,
  };
}

async function startKeyway() {
  const database = await openDatabase({ url: values.database });
  await insertGatewayDevices(database.db, deviceCount);
  const { port } = await startGateway(database.db);
  const online = async () => {
    const [row] = await database.db
      .select({ n: count() })
      .from(devices)
      .where(eq(devices.online, true));
    return row.n;
  };
  return {
    port,
    // Online flags are written as connections arrive; wait (up to 30 s) for the last ones.
    async allOnline() {
      for (let i = 0; i < 60 && (await online()) < deviceCount; i++)
        await new Promise((r) => setTimeout(r, 500));
      return online();
    },
    async stored() {
      const [row] = await database.db.select({ n: count() }).from(alarms);
      return row.n;
    },
  };
}

const system = values.system === "bare" ? await startBare() : await startKeyway();
const warm = await openDevice(system.port, "KW-BENCH-000000", "secret-KW-BENCH-000000");
warm.socket.destroy();
await new Promise((r) => setTimeout(r, 500));
process.on("message", async (what) => {
  if (what === "heap") {
    const online = await system.allOnline();
    global.gc?.();
    process.send?.({ heap: process.memoryUsage().heapUsed, online });
  } else if (what === "stored") process.send?.({ stored: await system.stored() });
});
global.gc?.();
process.send?.({ port: system.port, heap: process.memoryUsage().heapUsed });
// Ended by the bench with SIGTERM: exit normally, so that --cpu-prof writes its profile.
process.once("SIGTERM", () => process.exit(0));
