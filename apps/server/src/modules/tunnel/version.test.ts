import { request } from "node:http";
import { TUNNEL_PROTOCOL } from "@keyway/protocol";
import type { ProvisionedDevice } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TunnelClient } from "../../../../agent/src/tunnel.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { freePort } from "../../testing/ports.ts";

/**
 * The tunnel's wire version (TUNNEL_PROTOCOL): an agent asking for another version of the
 * socket carrier gets a clear refusal (426, naming the version spoken here) before anything
 * else, and the agent logs it; the right version still needs the device's secret.
 */

let h: Harness;
let port: number;
let device: ProvisionedDevice;

/** The server's answer to an upgrade request: status, headers, body (101: nothing read). */
function ask(upgrade: string, auth?: string) {
  return new Promise<{ status: number; upgrade?: string; body: string }>((done, fail) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/tunnel",
      // A connection of its own each time (the server closes a refused upgrade's socket).
      agent: false,
      headers: {
        connection: "Upgrade",
        upgrade,
        ...(auth ? { authorization: `Basic ${Buffer.from(auth).toString("base64")}` } : {}),
      },
    });
    req.on("upgrade", (response, socket) => {
      socket.destroy();
      done({ status: response.statusCode ?? 0, upgrade: response.headers.upgrade, body: "" });
    });
    req.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (d: string) => {
        body += d;
      });
      response.on("end", () =>
        done({ status: response.statusCode ?? 0, upgrade: response.headers.upgrade, body }),
      );
    });
    req.on("error", fail);
    req.end();
  });
}

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  [device] = await h.provision(operator, 1);
});

afterAll(async () => {
  await h?.close();
});

describe("/tunnel's wire version", { timeout: 60_000 }, () => {
  const secret = () => `${device.machineCode}:${device.deviceSecret}`;

  it("refuses another version of the socket carrier with 426 and the version it speaks", async () => {
    for (const other of ["keyway-tunnel/1", "keyway-tunnel/3", "Keyway-Tunnel/99"]) {
      const answer = await ask(other, secret());
      expect(answer.status).toBe(426);
      expect(answer.upgrade).toBe(TUNNEL_PROTOCOL);
      expect(answer.body).toContain(`speaks ${TUNNEL_PROTOCOL}`);
      expect(answer.body).toContain("upgrade keyway-agent");
    }
  });

  it("upgrades the version it speaks, for the device's secret only", async () => {
    expect((await ask(TUNNEL_PROTOCOL, `${device.machineCode}:wrong`)).status).toBe(401);
    expect((await ask(TUNNEL_PROTOCOL)).status).toBe(401);
    const good = await ask(TUNNEL_PROTOCOL, secret());
    expect(good.status).toBe(101);
    expect(good.upgrade).toBe(TUNNEL_PROTOCOL);
  });

  it("the agent says why when the cloud speaks another version", async () => {
    // A cloud of another version, as this server answers one.
    const { createServer } = await import("node:http");
    const other = createServer((_q, s) => s.end());
    other.on("upgrade", (_request, socket) => {
      const text =
        "This server speaks keyway-tunnel/3, the agent keyway-tunnel/2: upgrade keyway-agent.\n";
      socket.end(
        `HTTP/1.1 426 Upgrade Required\r\nUpgrade: keyway-tunnel/3\r\nConnection: close\r\nContent-Length: ${text.length}\r\n\r\n${text}`,
      );
    });
    await new Promise<void>((done) => other.listen(0, "127.0.0.1", () => done()));
    const lines: string[] = [];
    const client = new TunnelClient({
      url: `ws://127.0.0.1:${(other.address() as { port: number }).port}/tunnel`,
      code: device.machineCode,
      secret: device.deviceSecret,
      target: { host: "127.0.0.1", port: 9 },
      backoffMinMs: 60_000,
      log: (line) => lines.push(line),
    });
    client.start();
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => l.includes("HTTP 426")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await client.stop();
    other.close();
    const refusal = lines.find((l) => l.includes("HTTP 426"));
    expect(refusal).toContain("speaks keyway-tunnel/3");
    expect(refusal).toContain("upgrade keyway-agent");
    expect(client.status().tunnel).toBe("stopped");
  });
});
