// First of all: the Node.js version check (scripts/node-check.mjs).
import "../../../scripts/node-check.mjs";
import { realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig } from "./config.ts";
import { DataDirLockedError, openDatabase } from "./db/client.ts";
import { systemClock } from "./infra/clock.ts";
import { createDeviceService } from "./modules/devices/service.ts";

const USAGE = `Usage: npm run keyway -- <command>

Commands:
  devices provision --count N [--model M]   issue N machine codes; prints CSV
                                            (machine code, device secret, device password, model)

The database is the one the server uses (DATABASE_URL, or the embedded one in DATA_DIR;
the embedded one only while the server is stopped).`;

/** The operator's command line. Output goes to stdout; messages to stderr. */
export async function runCli(
  argv: string[],
  out: (line: string) => void = console.log,
): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      count: { type: "string" },
      model: { type: "string", default: "" },
      help: { type: "boolean" },
    },
  });
  if (values.help || positionals.join(" ") !== "devices provision") {
    console.error(USAGE);
    return values.help ? 0 : 64;
  }
  const count = Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > 100_000) {
    console.error("--count must be a whole number from 1 to 100000");
    return 64;
  }
  const config = loadConfig();
  const database = await openDatabase({
    url: config.DATABASE_URL,
    dataDir: path.join(config.DATA_DIR, "pglite"),
  });
  try {
    const devices = createDeviceService({ db: database.db, clock: systemClock });
    out("machine_code,device_secret,device_password,model");
    for (let done = 0; done < count; done += 500) {
      for (const d of await devices.provision(Math.min(500, count - done), values.model)) {
        out([d.machineCode, d.deviceSecret, d.devicePassword, d.model].map(csvField).join(","));
      }
    }
    return 0;
  } finally {
    await database.close();
  }
}

function csvField(value: string): string {
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Run as a program (not imported by a test). Compared as real paths: operators run it through
 * the /opt/keyway symlink (docs/deploy.md), and Node names the module by its real path.
 */
function isMain(): boolean {
  try {
    return realpathSync(process.argv[1] ?? "") === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  runCli(process.argv.slice(2))
    .then((code) => process.exit(code))
    .catch((error) => {
      if (error instanceof ConfigError || error instanceof DataDirLockedError) {
        console.error(error.message);
        process.exit(78);
      }
      console.error(error);
      process.exit(1);
    });
}
