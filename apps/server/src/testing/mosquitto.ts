import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import mqtt from "mqtt";
import { freePort } from "./ports.ts";

const MOSQUITTO = "/usr/sbin/mosquitto";

/**
 * A real Mosquitto (Debian's `mosquitto`) on a free loopback port, anonymous, in memory;
 * `extra`: more lines of its configuration.
 */
export async function startMosquitto(
  extra: string[] = [],
): Promise<{ port: number; url: string; stop(): void }> {
  if (!existsSync(MOSQUITTO)) throw new Error(`${MOSQUITTO} is missing: apt-get install mosquitto`);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "kw-mosquitto-"));
  const conf = path.join(dir, "mosquitto.conf");
  const lines = [`listener ${port} 127.0.0.1`, "allow_anonymous true", "persistence false"];
  writeFileSync(conf, `${[...lines, ...extra].join("\n")}\n`);
  const broker: ChildProcess = spawn(MOSQUITTO, ["-c", conf], { stdio: "ignore" });
  const url = `mqtt://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const probe = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 500 });
      probe.once("connect", () => probe.end(true, () => resolve(true)));
      probe.once("error", () => resolve(false));
      probe.once("close", () => resolve(false));
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    url,
    stop() {
      broker.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
