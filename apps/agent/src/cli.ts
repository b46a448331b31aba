import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Agent } from "./agent.ts";
import { Simulator, simulatedLocation } from "./simulator.ts";

const USAGE = `Usage: keyway-agent run --server <url> --code <machine code> --secret <device secret> [options]

  --server URL          the cloud's MQTT endpoint: mqtt://host:1883 or ws://host:8080/mqtt
                        (mqtts:// and wss:// work too)
  --code CODE           machine code (MQTT username)
  --secret SECRET       device secret (MQTT password)
  --data-dir DIR        where the alarm queue is kept (default ./agent-data)
  --model MODEL         model reported on the state topic
  --location-every S    seconds between location reports (default 600; 0 = on request only)
  --simulate            run a simulated HMI (tags, alarms, a web page)
  --http-port PORT      simulated HMI's web port (default 8000)
  --alarm-every S       simulate: a random alarm every S seconds (default 0 = off)
  --backoff-max S       longest wait between reconnect attempts (default 30)
  -h, --help            show this text
`;

const EX_USAGE = 64;

function usageError(message: string): never {
  process.stderr.write(`keyway-agent: ${message}\n\n${USAGE}`);
  process.exit(EX_USAGE);
}

function count(name: string, value: string | undefined, fallback: number, max = 86_400): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) {
    usageError(`--${name} must be a whole number from 0 to ${max}`);
  }
  return Number(value);
}

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    return String(pkg.version);
  } catch {
    return "0.0.0";
  }
}

async function main(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        server: { type: "string" },
        code: { type: "string" },
        secret: { type: "string" },
        "data-dir": { type: "string" },
        model: { type: "string" },
        "location-every": { type: "string" },
        simulate: { type: "boolean" },
        "http-port": { type: "string" },
        "alarm-every": { type: "string" },
        "backoff-max": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  }
  try {
    parsed = parse();
  } catch (error) {
    usageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (positionals.length !== 1 || positionals[0] !== "run") {
    usageError(positionals.length ? `unknown command "${positionals.join(" ")}"` : "no command");
  }
  const server = values.server ?? usageError("--server is required");
  if (!/^(mqtts?|wss?|tcp|tls):\/\/[^/]+/.test(server)) {
    usageError("--server must be an mqtt://, mqtts://, ws:// or wss:// URL");
  }
  const code = (values.code ?? usageError("--code is required")).trim().toUpperCase();
  const secret = values.secret ?? usageError("--secret is required");
  if (!code) usageError("--code must not be empty");
  if (!secret) usageError("--secret must not be empty");
  if (!values.simulate && (values["http-port"] || values["alarm-every"])) {
    usageError("--http-port and --alarm-every need --simulate");
  }
  const httpPort = count("http-port", values["http-port"], 8000, 65_535);
  const alarmEvery = count("alarm-every", values["alarm-every"], 0);
  const locationEvery = count("location-every", values["location-every"], 600);
  const backoffMax = count("backoff-max", values["backoff-max"], 30, 3600);
  if (backoffMax < 1) usageError("--backoff-max must be at least 1");

  const agent = new Agent({
    server,
    code,
    secret,
    dataDir: resolve(values["data-dir"] ?? "./agent-data"),
    model: values.model ?? (values.simulate ? "Simulated HMI" : undefined),
    version: version(),
    locationEvery,
    locationSource: values.simulate ? simulatedLocation : undefined,
    backoffMaxMs: backoffMax * 1000,
  });
  agent.start();
  const simulator = values.simulate ? new Simulator({ agent, httpPort, alarmEvery }) : undefined;
  if (simulator) {
    const port = await simulator.start();
    console.log(`${new Date().toISOString()} simulated HMI on http://localhost:${port}/`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${new Date().toISOString()} ${signal}: stopping`);
    await simulator?.stop();
    await agent.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`keyway-agent: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
