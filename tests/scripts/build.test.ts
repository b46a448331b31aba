import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../apps/agent/src/testing.ts";
import { DEMO_ACCOUNTS } from "../../apps/server/src/seed.ts";
import { freePort } from "../../apps/server/src/testing/ports.ts";
import { BUILT_AGENT, demoAgentCommand } from "../../scripts/demo-agent.mjs";
import { NODE_MAJOR, NODE_MIN_MINOR, nodeVersionProblem } from "../../scripts/node-check.mjs";

/**
 * The production build (scripts/build.mjs) as production runs it: the server and the agent
 * built into scratch out dirs, then started with plain `node` — no tsx, no --import, an empty
 * NODE_OPTIONS, a minimal environment and a working directory outside the repository. The
 * server applies its migrations and seeds the demo, the demo user logs in over HTTP, the built
 * agent comes online as the demo device, and every npm package the server loaded is a
 * production one (NODE_DEBUG lists what Node loads; package-lock.json marks dev-only packages).
 */

const root = path.resolve(import.meta.dirname, "../..");
const execFileAsync = promisify(execFile);
// Inside each app's folder, as the build requires (its package.json, node_modules, drizzle/).
const tag = `build-${process.pid}-${Date.now()}`;
const serverOut = path.join(root, "apps/server/.test-data", tag);
const agentOut = path.join(root, "apps/agent/.test-data", tag);
const scratch = mkdtempSync(path.join(tmpdir(), "kw-build-"));
const children: ChildProcess[] = [];

/** What a production host has: a PATH, and nothing from this shell (no NODE_OPTIONS). */
function productionEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_OPTIONS: "", ...extra };
}

function start(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { cwd: scratch, env, stdio: "pipe" });
  children.push(child);
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d) => {
    out.stdout += String(d);
  });
  child.stderr.on("data", (d) => {
    out.stderr += String(d);
  });
  return { child, out };
}

/** node <args>; its exit code and output. */
async function run(args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, args, { cwd: scratch, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(async () => {
  await execFileAsync(
    process.execPath,
    ["scripts/build.mjs", "--server-outdir", serverOut, "--agent-outdir", agentOut],
    { cwd: root },
  );
});

afterAll(async () => {
  for (const child of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((done) => child.once("exit", done));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  for (const dir of [serverOut, agentOut, scratch]) rmSync(dir, { recursive: true, force: true });
});

describe("the supported Node.js (scripts/node-check.mjs)", () => {
  it("is the one of .nvmrc and package.json engines", () => {
    expect(readFileSync(path.join(root, ".nvmrc"), "utf8").trim()).toBe(String(NODE_MAJOR));
    const engines = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).engines;
    expect(engines.node).toBe(`>=${NODE_MAJOR}.${NODE_MIN_MINOR} <${NODE_MAJOR + 1}`);
    expect(nodeVersionProblem(process.versions.node)).toBeNull();
  });

  it("says in one line what another version lacks", () => {
    expect(nodeVersionProblem("18.19.0")).toBe("Keyway needs Node.js 20 (found 18.19.0)");
    expect(nodeVersionProblem("22.12.0")).toBe("Keyway needs Node.js 20 (found 22.12.0)");
    expect(nodeVersionProblem("20.5.1")).toBe(
      "Keyway needs Node.js 20.19 or a later 20.x (found 20.5.1)",
    );
    expect(nodeVersionProblem("20.19.0")).toBeNull();
  });
});

describe("the production build", { timeout: 240_000 }, () => {
  it("checks the Node.js version before anything else runs", async () => {
    // Node.js 18 as far as the programs can tell: the check is their first import.
    const old =
      'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"18.19.0"})';
    for (const entry of [
      path.join(serverOut, "main.js"),
      path.join(serverOut, "cli.js"),
      path.join(agentOut, "keyway-agent.mjs"),
    ]) {
      const result = await run(["--import", old, entry, "--help"], productionEnv({}));
      expect(result).toEqual({
        code: 1,
        stdout: "",
        stderr: "Keyway needs Node.js 20 (found 18.19.0)\n",
      });
    }
  });

  it("gives the agent's usage with plain node", async () => {
    const help = await run([path.join(agentOut, "keyway-agent.mjs"), "--help"], productionEnv({}));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: keyway-agent run --server <url> --code <machine code>");
  });

  it("runs the server with plain node: demo login, web app, the demo device online", async () => {
    const port = await freePort();
    const dataDir = path.join(scratch, "data");
    const server = start(
      [path.join(serverOut, "main.js")],
      productionEnv({
        PORT: String(port),
        HOST: "127.0.0.1",
        DATA_DIR: dataDir,
        MQTT_PORT: "0",
        DEMO: "1",
        LOG_LEVEL: "warn",
        // Node's own log of every module it loads (stderr), checked below.
        NODE_DEBUG: "esm,module",
      }),
    );
    const log = () => server.out.stdout;
    await until(() => server.out.stdout.includes("Demo login") || server.child.exitCode !== null, {
      timeoutMs: 180_000,
      log,
    });
    expect(server.out.stdout).toContain(`embedded PGlite in ${dataDir}`);

    const api = `http://127.0.0.1:${port}`;
    const login = await fetch(`${api}/api/user/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        loginName: DEMO_ACCOUNTS.user.email,
        loginPwd: DEMO_ACCOUNTS.user.password,
      }),
    });
    const body = (await login.json()) as { hwcode: number; hwdata: { result: { token: string } } };
    expect(body.hwcode).toBe(0);
    const token = body.hwdata.result.token;
    // The web app is found from the build as from the sources (when it is built: npm test
    // builds it first).
    if (existsSync(path.join(root, "apps/web/dist/index.html"))) {
      expect((await fetch(`${api}/login`)).status).toBe(200);
    }

    // The built agent as npm start runs it (scripts/demo-agent.mjs), from this build.
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo-agent.json"), "utf8"));
    const hmiPort = await freePort();
    const command = demoAgentCommand({
      demo,
      hmiPort,
      dataDir,
      env: productionEnv({}),
      program: [
        ...BUILT_AGENT.slice(0, -1),
        path.join(agentOut, path.basename(BUILT_AGENT.at(-1) as string)),
      ],
    });
    const agent = start(command.args, command.env);
    await until(
      async () => {
        const res = await fetch(`${api}/api/machine/select`, {
          method: "POST",
          headers: { cloudtoken: token },
        });
        return JSON.stringify(await res.json()).includes('"online":true');
      },
      { timeoutMs: 60_000, log: () => `${agent.out.stdout}${agent.out.stderr}` },
    );

    // Node's list of what the server loaded: JavaScript from the build and npm packages, all
    // of them production ones; no tsx, no esbuild, nothing TypeScript.
    const loaded = new Set(
      [...server.out.stderr.matchAll(/(?:file:\/\/)?(\/[^\s"'`]+\.(?:[cm]?js|ts|node|json))/g)]
        .map((m) => m[1] as string)
        .filter((file) => file.startsWith(`${root}/`)),
    );
    expect([...loaded].filter((file) => file.startsWith(`${serverOut}/`))).toEqual(
      expect.arrayContaining([
        path.join(serverOut, "main.js"),
        path.join(serverOut, "node-check.js"),
      ]),
    );
    expect([...loaded].filter((file) => file.endsWith(".ts"))).toEqual([]);
    const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const packages = new Set<string>();
    for (const file of loaded) {
      const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)/.exec(path.relative(root, file));
      if (match) packages.add(match[1] as string);
    }
    expect(packages.size).toBeGreaterThan(20);
    expect([...packages].filter((p) => lock.packages[p]?.dev === true)).toEqual([]);
    expect([...packages].filter((p) => /node_modules\/(tsx|esbuild|vitest)$/.test(p))).toEqual([]);
  });
});
