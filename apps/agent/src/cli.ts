// First of all: the Node.js version check (scripts/node-check.mjs).
import "../../../scripts/node-check.mjs";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  AGENT_FEATURE_CONTROL,
  formatTarget,
  parseTarget,
  type TunnelTarget,
} from "@keyway/protocol";
import { Agent } from "./agent.ts";
import { ConsentDesk } from "./consent.ts";
import { ConsentServer } from "./consentPage.ts";
import { Forwarder } from "./forward.ts";
import { resolveSecret, SecretError, type SecretSources } from "./secrets.ts";
import { Simulator, simulatedLocation } from "./simulator.ts";
import { TunnelClient } from "./tunnel.ts";

const USAGE = `Usage: keyway-agent run --server <url> --code <machine code> --secret-file <path> [options]
       (or the device secret in KEYWAY_AGENT_SECRET instead of --secret-file)
       keyway-agent forward --server <http(s) url> --token-file <path>
                            (--visit <visit url or id> | --device <machineID>)
                            --local <port> --target <host:port> [--bind <address>]
       (or the login token in KEYWAY_AGENT_TOKEN instead of --token-file)

run: the device side.
  --server URL          the cloud's MQTT endpoint: mqtt://host:1883 or ws://host:8080/mqtt
                        (mqtts:// and wss:// work too)
  --code CODE           machine code (MQTT username)
  --secret-file PATH    a file holding the device secret (MQTT password); keep it mode 600
                        (a file other users can read gets a warning)
                        Without it: the KEYWAY_AGENT_SECRET environment variable.
  --secret SECRET       the device secret itself: discouraged, every local user sees a
                        command line (ps); not together with --secret-file
  --tunnel URL          the cloud's remote-access endpoint, ws(s)://host:8080/tunnel
                        (default: derived from a ws(s):// --server; none for mqtt://)
  --target HOST:PORT    what a visit opens: the device's web UI (default 127.0.0.1:8000,
                        the simulated HMI with --simulate)
  --allow LIST          further targets visits may reach, comma-separated host:port
                        (e.g. 192.168.1.10:502); anything else is refused here
  --vnc HOST:PORT       the device's screen, a VNC server (e.g. 192.168.1.20:5900): offered
                        to visitors as "Screen" and added to the allow-list
  --consent-hook PATH   on-site consent by a program: run for each visit that asks (no
                        shell; the visit in KEYWAY_VISIT_ID, KEYWAY_VISITOR, KEYWAY_ACCOUNT,
                        KEYWAY_VISIT_KIND, KEYWAY_VIEW_ONLY); exit 0 accepts, anything else
                        refuses; killed after 30 s (no answer)
  --consent-port PORT   on-site consent on a local page: http://127.0.0.1:PORT/ shows the
                        visits that ask, with Accept / Refuse, and the running ones (End)
  --consent-bind ADDR   the address of that page (default 127.0.0.1: only this machine)
  --data-dir DIR        where the alarm queue is kept (default ./agent-data)
  --model MODEL         model reported on the state topic
  --location-every S    seconds between location reports (default 600; 0 = on request only)
  --simulate            run a simulated HMI (tags, alarms, a web page)
  --http-port PORT      simulated HMI's web port (default 8000)
  --http-bind ADDRESS   simulate: the address the HMI page listens on (default 127.0.0.1;
                        0.0.0.0 opens it to the LAN, where anyone can raise alarms on it)
  --alarm-every S       simulate: a random alarm every S seconds (default 0 = off)
  --data-every S        simulate: report the tags as data every S seconds (default 5; 0 = off)
  --backoff-max S       longest wait between reconnect attempts (default 30)

forward: a local TCP port on this PC reaching a target on the device's LAN through the cloud,
with the visitor's rights and in the device's visit log.
  --server URL          the cloud, http(s)://host:8080
  --token-file PATH     a file holding a login token (cloudtoken) of the visitor; keep it
                        mode 600. Without it: the KEYWAY_AGENT_TOKEN environment variable.
  --token TOKEN         the token itself: discouraged (seen in ps), not with --token-file
  --visit URL|ID        a visit issued to that login (getValidVisitUrl), or
  --device ID           the device (machineID) to ask a visit for
  --local PORT          the local port to listen on (0 picks one)
  --bind ADDRESS        the local address (default 127.0.0.1)
  --target HOST:PORT    the target on the device's LAN (must be on the device's --allow list)

  -h, --help            show this text
`;

const EX_USAGE = 64;

function usageError(message: string): never {
  process.stderr.write(`keyway-agent: ${message}\n\n${USAGE}`);
  process.exit(EX_USAGE);
}

/** The secret from its file, the environment or (discouraged) the command line; see secrets.ts. */
function secretOrExit(sources: SecretSources): string {
  try {
    const secret = resolveSecret(sources);
    for (const warning of secret.warnings)
      process.stderr.write(`keyway-agent: warning: ${warning}\n`);
    // Read once: not handed down to anything this process may start.
    delete process.env[sources.envName];
    return secret.value;
  } catch (error) {
    if (error instanceof SecretError) usageError(error.message);
    throw error;
  }
}

function count(name: string, value: string | undefined, fallback: number, max = 86_400): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) > max) {
    usageError(`--${name} must be a whole number from 0 to ${max}`);
  }
  return Number(value);
}

/** The version in the agent's package.json: the nearest one above this file (src/ or dist/). */
function version(): string {
  try {
    for (let dir = import.meta.dirname; dirname(dir) !== dir; dir = dirname(dir)) {
      const file = join(dir, "package.json");
      if (existsSync(file)) return String(JSON.parse(readFileSync(file, "utf8")).version);
    }
  } catch {}
  return "0.0.0";
}

function target(name: string, text: string): TunnelTarget {
  return parseTarget(text) ?? usageError(`--${name} must be host:port, e.g. 192.168.1.10:502`);
}

const RUN_OPTIONS = {
  server: { type: "string" },
  code: { type: "string" },
  secret: { type: "string" },
  "secret-file": { type: "string" },
  "data-dir": { type: "string" },
  model: { type: "string" },
  "location-every": { type: "string" },
  simulate: { type: "boolean" },
  "http-port": { type: "string" },
  "http-bind": { type: "string" },
  "alarm-every": { type: "string" },
  "data-every": { type: "string" },
  "backoff-max": { type: "string" },
  tunnel: { type: "string" },
  target: { type: "string" },
  allow: { type: "string" },
  vnc: { type: "string" },
  "consent-hook": { type: "string" },
  "consent-port": { type: "string" },
  "consent-bind": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** A consent hook must be a program this user can run (checked now, not at the first visit). */
function hookPath(text: string): string {
  const path = resolve(text);
  try {
    if (!statSync(path).isFile()) usageError(`--consent-hook ${text} is not a file`);
    accessSync(path, constants.X_OK);
  } catch {
    usageError(`--consent-hook ${text} is not an executable file`);
  }
  return path;
}

const FORWARD_OPTIONS = {
  server: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
  visit: { type: "string" },
  device: { type: "string" },
  local: { type: "string" },
  bind: { type: "string" },
  target: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(argv: string[]): Promise<void> {
  const command = argv.find((a) => !a.startsWith("-"));
  if (command === "forward") return forward(argv);
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({ args: argv, allowPositionals: true, strict: true, options: RUN_OPTIONS });
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
  if (!code) usageError("--code must not be empty");
  const secret = secretOrExit({
    what: "device secret",
    option: "secret",
    value: values.secret,
    file: values["secret-file"],
    envName: "KEYWAY_AGENT_SECRET",
    env: process.env,
  });
  if (
    !values.simulate &&
    (values["http-port"] || values["http-bind"] || values["alarm-every"] || values["data-every"])
  ) {
    usageError("--http-port, --http-bind, --alarm-every and --data-every need --simulate");
  }
  const httpBind = values["http-bind"] ?? "127.0.0.1";
  if (!isIP(httpBind)) usageError("--http-bind must be an IP address, e.g. 127.0.0.1 or 0.0.0.0");
  const httpPort = count("http-port", values["http-port"], 8000, 65_535);
  const alarmEvery = count("alarm-every", values["alarm-every"], 0);
  const dataEvery = count("data-every", values["data-every"], 5);
  const locationEvery = count("location-every", values["location-every"], 600);
  const backoffMax = count("backoff-max", values["backoff-max"], 30, 3600);
  if (backoffMax < 1) usageError("--backoff-max must be at least 1");
  if (values.tunnel && !/^(wss?|https?):\/\/[^/]+/.test(values.tunnel)) {
    usageError("--tunnel must be a ws://, wss://, http:// or https:// URL");
  }
  // MQTT over WebSocket shares the HTTP port with /tunnel; a broker's TCP port tells nothing.
  const tunnelUrl = values.tunnel
    ? values.tunnel.replace(/^http/, "ws")
    : /^wss?:\/\//.test(server)
      ? new URL("/tunnel", server).href
      : undefined;
  const webTarget = values.target
    ? target("target", values.target)
    : { host: "127.0.0.1", port: values.simulate ? httpPort : 8000 };
  const allow = (values.allow ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => target("allow", t));
  const vnc = values.vnc ? target("vnc", values.vnc) : undefined;
  const consentHook = values["consent-hook"] ? hookPath(values["consent-hook"]) : undefined;
  if (values["consent-bind"] && !values["consent-port"])
    usageError("--consent-bind needs --consent-port");
  const consentBind = values["consent-bind"] ?? "127.0.0.1";
  if (!isIP(consentBind)) usageError("--consent-bind must be an IP address, e.g. 127.0.0.1");
  const consentPort = values["consent-port"]
    ? count("consent-port", values["consent-port"], 0, 65_535)
    : undefined;
  // Someone here can answer consent asks: the simulated HMI's prompt, the page or the hook.
  // Only then does the cloud hear "control"; a device whose Akey wants consent but whose
  // agent has nobody to ask is refused at once (CONSENT_UNSUPPORTED), not after 30 s.
  const consent =
    values.simulate || consentHook || consentPort !== undefined
      ? new ConsentDesk({ hook: consentHook })
      : undefined;

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
  const tunnel = tunnelUrl
    ? new TunnelClient({
        url: tunnelUrl,
        code,
        secret,
        target: webTarget,
        allow,
        vnc,
        features: consent ? [AGENT_FEATURE_CONTROL] : [],
        onControl: (message) => consent?.onControl(message),
        version: version(),
        backoffMaxMs: backoffMax * 1000,
      })
    : undefined;
  // A request that came through the tunnel is a visitor's, never the person at the machine.
  const fromTunnel = (req: IncomingMessage) =>
    tunnel?.carries(req.socket.remoteAddress, req.socket.remotePort) ?? false;
  if (tunnel) {
    consent?.attach((message) => tunnel.sendControl(message));
    tunnel.start();
    console.log(
      `${new Date().toISOString()} remote access: visits open ${formatTarget(webTarget)}` +
        (allow.length ? `; also allowed: ${allow.map(formatTarget).join(", ")}` : "") +
        (vnc ? `; screen (VNC) ${formatTarget(vnc)}` : "") +
        (consent ? "; on-site consent can be asked here" : ""),
    );
  } else {
    console.log(`${new Date().toISOString()} remote access off (no --tunnel)`);
  }
  const simulator = values.simulate
    ? new Simulator({ agent, httpPort, host: httpBind, alarmEvery, dataEvery, consent, fromTunnel })
    : undefined;
  const consentServer =
    consent && consentPort !== undefined
      ? new ConsentServer({ desk: consent, code, port: consentPort, host: consentBind, fromTunnel })
      : undefined;
  if (consentServer) {
    const port = await consentServer.start();
    const shown = consentBind.includes(":") ? `[${consentBind}]` : consentBind;
    console.log(`${new Date().toISOString()} on-site consent page on http://${shown}:${port}/`);
  }
  if (simulator) {
    const port = await simulator.start();
    const shown = httpBind.includes(":") ? `[${httpBind}]` : httpBind;
    console.log(`${new Date().toISOString()} simulated HMI on http://${shown}:${port}/`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${new Date().toISOString()} ${signal}: stopping`);
    await simulator?.stop();
    await consentServer?.stop();
    consent?.close();
    await tunnel?.stop();
    await agent.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

async function forward(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: FORWARD_OPTIONS,
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
  if (positionals.length !== 1) usageError(`unknown command "${positionals.join(" ")}"`);
  const server = values.server ?? usageError("--server is required");
  if (!/^https?:\/\/[^/]+/.test(server)) usageError("--server must be an http:// or https:// URL");
  const token = secretOrExit({
    what: "login token",
    option: "token",
    value: values.token,
    file: values["token-file"],
    envName: "KEYWAY_AGENT_TOKEN",
    env: process.env,
  });
  if (!values.visit === !values.device) usageError("give one of --visit and --device");
  if (values.device !== undefined && !/^\d+$/.test(values.device)) {
    usageError("--device must be a machine id (a number)");
  }
  const localPort = count("local", values.local ?? usageError("--local is required"), 0, 65_535);
  const to = formatTarget(target("target", values.target ?? usageError("--target is required")));
  const forwarder = new Forwarder({
    server,
    token,
    visit: values.visit,
    device: values.device ? Number(values.device) : undefined,
    target: to,
    localPort,
    bind: values.bind,
  });
  try {
    await forwarder.start();
  } catch (error) {
    console.error(`keyway-agent: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const shutdown = async () => {
    await forwarder.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
}

main(process.argv.slice(2)).catch((error) => {
  console.error(`keyway-agent: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
