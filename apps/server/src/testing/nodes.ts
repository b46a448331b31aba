import { type App, type AppDeps, buildApp } from "../app.ts";
import { type Config, testConfig } from "../config.ts";
import type { Db } from "../db/client.ts";
import { seedDemo } from "../seed.ts";

/** A node of a several-node test: the whole app on `port`, sharing the test's database. */
export async function startTestNode(
  db: Db,
  port: number,
  config: Partial<Config>,
  deps: Partial<Omit<AppDeps, "config" | "db">> = {},
): Promise<{ app: App; port: number }> {
  const app = await buildApp({
    config: testConfig({ PORT: port, NODE_URL: `http://127.0.0.1:${port}`, ...config }),
    db,
    logger: false,
    sweepEveryMs: 0,
    notifyEveryMs: 0,
    reporting: { pollMs: 0 },
    ...deps,
  });
  await app.listen({ port, host: "127.0.0.1" });
  return { app, port };
}

// biome-ignore lint/suspicious/noExplicitAny: envelopes of several calls
async function post(port: number, path: string, token: string, body: object): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { ...(token ? { cloudtoken: token } : {}), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return res.json();
}

/**
 * The demo owner with a newly provisioned device added ("Press"), through a node's HTTP API:
 * the operator provisions it, the demo user adds it. What the agent needs comes back too.
 */
export async function demoDeviceThrough(node: { app: App; port: number }) {
  await seedDemo(node.app.services.accounts);
  const login = async (loginName: string, loginPwd: string) =>
    (
      await post(node.port, "/api/user/login", "", {
        loginName,
        loginPwd,
        terminalUUID: `t-${Math.random()}`,
        terminalName: "Vitest",
        terminalType: "ops",
      })
    ).hwdata.result.token as string;
  const operator = await login("operator@keyway.local", "operator123");
  const [device] = (
    await post(node.port, "/api/operator/v1/devices/provision", operator, { count: 1 })
  ).hwdata.list as { machineCode: string; deviceSecret: string; devicePassword: string }[];
  const token = await login("demo@keyway.local", "demo1234");
  const added = await post(node.port, "/api/machine/add", token, {
    machineName: "Press",
    machineCode: device.machineCode,
    machinePwd: device.devicePassword,
  });
  return { token, machineID: added.hwdata.machine_id as number, device };
}
