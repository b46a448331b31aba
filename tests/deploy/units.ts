import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import path from "node:path";

/**
 * The deploy tests run what deploy/ gives an operator, as it is: a systemd unit's ExecStart
 * with its Environment= and EnvironmentFile= (systemd's own parsing rules, for the parts the
 * units use), on this machine instead of the operator's. `Layout` says where the unit's paths
 * are here: /opt/keyway is this checkout, /etc and /var are folders of the test's own.
 */
export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface Layout {
  /** A folder of the test's own standing for `/`: /etc/keyway → <root>/etc/keyway. */
  root: string;
  /**
   * /opt is in `root` too (a release cloned and built there, as docs/deploy.md does it);
   * otherwise /opt/keyway is this checkout.
   */
  ownOpt?: boolean;
}

/** A path of a unit or of docs/deploy.md as it is on this machine. */
export function hostPath(layout: Layout, unitPath: string): string {
  if (unitPath === "/usr/bin/node") return process.execPath;
  if (layout.ownOpt && /^\/opt(\/|$)/.test(unitPath)) return layout.root + unitPath;
  if (unitPath === "/opt/keyway" || unitPath.startsWith("/opt/keyway/"))
    return ROOT + unitPath.slice("/opt/keyway".length);
  if (/^\/(etc|var|run)(\/|$)/.test(unitPath)) return layout.root + unitPath;
  return unitPath;
}

/** Every operator path in a command line (as docs/deploy.md writes them) mapped to this machine. */
export function hostCommand(layout: Layout, command: string): string {
  return command.replace(
    /(?<![\w.])\/(?:opt\/keyway[\w.-]*(?=[/\s'"]|$)|(?:etc|var|run)(?=\/))[^\s'"]*/g,
    (p) => hostPath(layout, p),
  );
}

export type Unit = Record<string, Record<string, string[]>>;

/** A unit file: sections of keys, each key with its values in order (continuations joined). */
export function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  const lines = text.replace(/\\\n/g, " ").split("\n");
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      unit[header[1]] = unit[header[1]] ?? {};
      section = unit[header[1]];
      continue;
    }
    const eq = line.indexOf("=");
    if (!section || eq < 0) throw new Error(`not a unit line: ${line}`);
    const key = line.slice(0, eq).trim();
    section[key] = [...(section[key] ?? []), line.slice(eq + 1).trim()];
  }
  return unit;
}

export function readUnit(name: string): Unit {
  return parseUnit(readFileSync(path.join(ROOT, "deploy/systemd", name), "utf8"));
}

/** An EnvironmentFile: NAME=value lines, `#`/`;` comment lines, quotes around a value removed. */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new Error(`not NAME=value: ${line}`);
    let value = match[2];
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    values[match[1]] = value;
  }
  return values;
}

/**
 * An example environment file (deploy/*.env.example) with the test's values: each name given
 * must be in the example (set or commented out), `null` comments a line out, and no
 * `CHANGE-ME` may be left: the example names every value an operator has to choose.
 */
export function renderExample(example: string, values: Record<string, string | null>): string {
  const left = new Set(Object.keys(values));
  const lines = readFileSync(path.join(ROOT, example), "utf8")
    .split("\n")
    .map((line) => {
      const match = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line);
      if (!match || !(match[1] in values)) return line;
      const name = match[1];
      // A commented-out line is only a hint unless the test gives it a value.
      if (line.startsWith("#") && !left.has(name)) return line;
      left.delete(name);
      const value = values[name];
      return value === null ? `#${name}=` : `${name}=${value}`;
    });
  if (left.size > 0) throw new Error(`${example} has no ${[...left].join(", ")}`);
  const text = lines.join("\n");
  const unfilled = text.split("\n").filter((l) => !l.startsWith("#") && l.includes("CHANGE-ME"));
  if (unfilled.length > 0) throw new Error(`${example}: left to choose: ${unfilled.join("; ")}`);
  return text;
}

/** systemd's specifiers in unit `name` (the ones ours use), for instance `instance`. */
function specifiers(text: string, name: string, instance: string): string {
  return text.replace(/%(.)/g, (_all, c: string) => {
    switch (c) {
      case "i":
      case "I":
        return instance;
      case "%":
        return "%";
      case "S":
        return "/var/lib";
      case "d":
        return `/run/credentials/${name.replace("@", `@${instance}`)}`;
      default:
        throw new Error(`specifier %${c} not known to the deploy tests`);
    }
  });
}

/**
 * ExecStart split into words as systemd does: quotes group, `${NAME}` is one word (empty
 * stays an empty word), `$NAME` alone splits into the value's words.
 */
export function execWords(line: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const word = match[1] ?? match[2] ?? match[3];
    const alone = /^\$([A-Za-z_][A-Za-z0-9_]*)$/.exec(word);
    if (alone && match[3] !== undefined) {
      words.push(...(env[alone[1]] ?? "").split(/\s+/).filter(Boolean));
      continue;
    }
    words.push(
      word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_all, name: string) => env[name] ?? ""),
    );
  }
  return words;
}

export interface UnitCommand {
  /** The program and its arguments, paths as on this machine. */
  argv: string[];
  /** The unit's environment: Environment=, then its EnvironmentFile=s in order (files win). */
  env: Record<string, string>;
  cwd: string;
  /** The unit's own words (ExecStart after expansion, operator paths), for assertions. */
  unitArgv: string[];
}

/**
 * What systemd would run for `name` (instance `instance` of a template): its environment and
 * its ExecStart with the unit's paths mapped to this machine and, while the production build
 * is not used, its built program swapped for the sources (`program`).
 */
export function unitCommand(name: string, layout: Layout, instance = ""): UnitCommand {
  const unit = readUnit(name);
  const service = unit.Service ?? {};
  const env: Record<string, string> = {};
  for (const line of service.Environment ?? []) {
    for (const word of execWords(specifiers(line, name, instance), {})) {
      const eq = word.indexOf("=");
      env[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  for (const line of service.EnvironmentFile ?? []) {
    const optional = line.startsWith("-");
    const file = hostPath(layout, specifiers(optional ? line.slice(1) : line, name, instance));
    if (!existsSync(file)) {
      if (optional) continue;
      throw new Error(`${name}: EnvironmentFile ${file} is missing`);
    }
    Object.assign(env, parseEnvironmentFile(readFileSync(file, "utf8")));
  }
  // What systemd prepares: the state folder, and the credentials copied where only the
  // service reads them (mode 400), with the variables that name both.
  const unitName = name.replace("@", `@${instance}`);
  for (const dir of service.StateDirectory ?? []) {
    mkdirSync(hostPath(layout, `/var/lib/${dir}`), { recursive: true, mode: 0o750 });
    env.STATE_DIRECTORY = `/var/lib/${dir}`;
  }
  for (const line of service.LoadCredential ?? []) {
    const [id, source] = line.split(/:(.*)/s);
    const dir = hostPath(layout, `/run/credentials/${unitName}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const target = path.join(dir, id);
    rmSync(target, { force: true });
    copyFileSync(hostPath(layout, source), target);
    chmodSync(target, 0o400);
    env.CREDENTIALS_DIRECTORY = `/run/credentials/${unitName}`;
  }
  for (const variable of ["STATE_DIRECTORY", "CREDENTIALS_DIRECTORY"])
    if (env[variable]) env[variable] = hostPath(layout, env[variable]);
  const [execStart] = service.ExecStart ?? [];
  if (!execStart) throw new Error(`${name} has no ExecStart`);
  const unitArgv = execWords(specifiers(execStart, name, instance), env);
  const argv = unitArgv.map((word) => hostCommand(layout, word));
  argv[0] = hostPath(layout, unitArgv[0]);
  const cwd = hostPath(layout, service.WorkingDirectory?.[0] ?? "/");
  return { argv: program(argv), env, cwd, unitArgv };
}

/**
 * THE switch between the production build and the sources, for every program the deploy
 * tests start: "built" runs the unit's own `node .../dist/<entry>.js` (built once by `npm run
 * build` when missing or older than the sources); "source" runs `node --import tsx
 * .../src/<entry>.ts` in its place.
 */
export const RUN_FROM: "built" | "source" = "built";

function program(argv: string[]): string[] {
  const index = argv.findIndex((a) => /\/apps\/[^/]+\/dist\/[^/]+\.js$/.test(a));
  if (index < 0) return argv;
  if (RUN_FROM === "built") {
    ensureBuilt();
    return argv;
  }
  const source = argv[index].replace("/dist/", "/src/").replace(/\.js$/, ".ts");
  return [...argv.slice(0, index), "--import", "tsx", source, ...argv.slice(index + 1)];
}

function newest(dir: string): number {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    // Tests are not built: editing one leaves the build as it is.
    if (/\.test\.tsx?$/.test(entry.name)) continue;
    const full = path.join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return latest;
}

/** Which builds are missing or older than their sources: the programs (server, agent), the web app. */
function staleBuilds(): { programs: boolean; web: boolean } {
  const sources = Math.max(
    newest(path.join(ROOT, "packages/shared/src")),
    newest(path.join(ROOT, "packages/protocol/src")),
  );
  const stale = (outputs: Array<[string, string[]]>) =>
    outputs.some(([output, from]) => {
      const file = path.join(ROOT, output);
      if (!existsSync(file)) return true;
      const newestSource = Math.max(sources, ...from.map((dir) => newest(path.join(ROOT, dir))));
      return statSync(file).mtimeMs < newestSource;
    });
  return {
    programs: stale([
      ["apps/server/dist/main.js", ["apps/server/src", "apps/server/drizzle"]],
      ["apps/server/dist/cli.js", ["apps/server/src"]],
      ["apps/agent/dist/keyway-agent.mjs", ["apps/agent/src"]],
    ]),
    web: stale([["apps/web/dist/index.html", ["apps/web/src"]]]),
  };
}

/**
 * Runs a build step as production does: vitest sets NODE_ENV=test, under which Vite would
 * build React's development version into apps/web/dist, the app every browser test serves.
 */
function build(command: string, args: string[]): void {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

let built = false;

/**
 * The build (`npm run build`'s two steps) once when missing or stale; test files running side by side
 * take turns on a lock folder, so that one builds and the others find it done.
 */
export function ensureBuilt(): void {
  if (built) return;
  const lock = path.join(ROOT, "node_modules/.cache/kw-deploy-build.lock");
  mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run is taken over after 10 minutes.
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now();
      if (Date.now() - since > 600_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`${lock} held for 10 minutes`);
      spawnSync("sleep", ["1"]);
    }
  }
  try {
    const stale = staleBuilds();
    // The programs only, unless the web app is missing too: `npm test` built it before the
    // tests began, and other test files are serving it meanwhile.
    if (stale.programs) build(process.execPath, ["scripts/build.mjs"]);
    if (stale.web) build("npm", ["run", "build", "-w", "@keyway/web"]);
    built = true;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface Started {
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<string>;
  /** SIGTERM (what `systemctl stop` sends), SIGKILL after `graceMs`; resolves once gone. */
  stop(graceMs?: number): Promise<string>;
  kill9(): Promise<string>;
}

/** Starts a unit's command as systemd would: its environment only, plus `extraEnv`. */
export function startUnit(command: UnitCommand, extraEnv: Record<string, string> = {}): Started {
  const child = spawn(command.argv[0], command.argv.slice(1), {
    cwd: command.cwd,
    // systemd's environment for a service: PATH, the unit's variables, nothing inherited.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...command.env, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let text = "";
  child.stdout?.on("data", (d) => {
    text += d;
  });
  child.stderr?.on("data", (d) => {
    text += d;
  });
  const exited = new Promise<string>((done) =>
    child.once("exit", (code, signal) => done(signal ?? String(code))),
  );
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    output: () => text,
    exited,
    async stop(graceMs = 20_000) {
      if (gone()) return exited;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      const how = await exited;
      clearTimeout(timer);
      return how;
    },
    async kill9() {
      if (!gone()) child.kill("SIGKILL");
      return exited;
    },
  };
}
