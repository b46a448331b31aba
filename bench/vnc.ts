import { type ChildProcess, fork } from "node:child_process";
import { loadavg } from "node:os";
import path from "node:path";
import { startVnc } from "../apps/server/src/testing/vnc.ts";
import { PROFILE_FLAGS, percentile } from "./stats.ts";
import { freePort, startNodeWithAgent } from "./tunnel.ts";
import { startSsh } from "./tunnel-ssh.ts";

const WIDTH = 1280;
const HEIGHT = 800;
const FRAMES = Number(process.env.BENCH_FRAMES ?? 300);
const PRESSES = Number(process.env.BENCH_PRESSES ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const _ROOT = path.resolve(import.meta.dirname, "..");

interface Figures {
  fps: number;
  mbPerSecond: number;
  firstByteP50: number;
  firstByteP99: number;
  completeP50: number;
  completeP99: number;
}

/** One viewer session (bench/vnc-client.ts) in a process of its own; resolves with its figures. */
function viewer(args: string[]): Promise<Figures> {
  const child: ChildProcess = fork(path.join(import.meta.dirname, "vnc-client.ts"), args, {
    // BENCH_PROFILE: the viewers (and the agent) write CPU profiles (bench/stats.ts).
    execArgv: ["--import", "tsx", ...PROFILE_FLAGS],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code, signal) => {
      if (code !== 0) reject(new Error(`the viewer exited with ${signal ?? code}`));
      else resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "{}"));
    });
  });
}

/**
 * The relay: the server in this process (+ PGlite), the real agent CLI in its own process
 * offering the VNC server (`--vnc`), and a way to issue a screen visit to the demo user (its
 * Akey: the visit may type) for each viewer session (a ticket opens one session).
 */
async function startRelay(vncPort: number) {
  const node = await startNodeWithAgent(["--vnc", `127.0.0.1:${vncPort}`], (hello) =>
    Boolean(hello.vnc),
  );
  const { app, port, deviceId, token, stop } = node;
  /** A fresh screen visit's WebSocket URL, dialled on loopback. */
  const screenUrl = async () => {
    const issued = await app.inject({
      method: "POST",
      url: "/api/v1/audit/getValidVisitUrl",
      headers: { cloudtoken: token },
      payload: { machineID: deviceId, kind: "screen" },
    });
    const body = issued.json();
    if (!body.hwdata?.ws_url) throw new Error(`no screen visit: ${issued.body}`);
    if (body.hwdata.view_only) throw new Error("the screen visit is view-only: no key would pass");
    const url = new URL(body.hwdata.ws_url as string);
    url.host = `127.0.0.1:${port}`;
    return url.href;
  };
  return { screenUrl, stop };
}

const medianOf = (list: Figures[], key: keyof Figures) =>
  list.length
    ? percentile(
        list.map((f) => f[key]),
        50,
      )
    : Number.NaN;

/**
 * The remote screen: full-screen 1280×800 updates and key-press latency through the relay
 * (viewer → server's screen WebSocket → tunnel → agent → VNC server) against a direct RFB
 * connection to the same VNC server and OpenSSH's remote forward (`ssh -R` through a private
 * sshd, the peer of `bench -- tunnel`: the same shape, viewer → server process → one outbound
 * connection → device-side process → VNC server), in alternating rounds. Raw encoding only: the bytes on
 * the wire are the screen's (4 MB a frame), so the relay's cost shows instead of the
 * compressor's. A real Xvnc (TigerVNC) runs a program whose whole screen changes colour on
 * each key press.
 */
type Path = "relay" | "direct" | "ssh";

export async function run() {
  const loadBefore = loadavg();
  // TigerVNC caps updates at 60 a second per client by default: lifted, so the path is the limit.
  const vnc = await startVnc({ width: WIDTH, height: HEIGHT, frameRate: 1000 });
  const relay = await startRelay(vnc.port).catch(async (error) => {
    await vnc.stop();
    throw error;
  });
  const ssh = await startSsh(vnc.port, freePort).catch(async (error) => {
    await relay.stop();
    await vnc.stop();
    throw error;
  });
  const counts = ["--frames", String(FRAMES), "--presses", String(PRESSES)];
  const runs: Record<Path, Figures[]> = { relay: [], direct: [], ssh: [] };
  const loads: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating (the order turned each round) so every path sees the same load.
      const paths: Path[] = ["direct", "relay", "ssh"];
      const order = [...paths.slice(round % 3), ...paths.slice(0, round % 3)];
      for (const which of order) {
        const args =
          which === "relay"
            ? ["--url", await relay.screenUrl()]
            : ["--port", String(which === "ssh" ? ssh.port : vnc.port)];
        runs[which].push(await viewer([...args, ...counts]));
        loads.push(loadavg()[0]);
      }
    }
  } finally {
    ssh.stop();
    await relay.stop();
    await vnc.stop();
  }

  const r = (key: keyof Figures) => medianOf(runs.relay, key);
  const d = (key: keyof Figures) => medianOf(runs.direct, key);
  const o = (key: keyof Figures) => medianOf(runs.ssh, key);
  const loadAfter = loadavg();
  console.log(
    `vnc: ${WIDTH}x${HEIGHT} screen (32 bits a pixel, Raw encoding), ${FRAMES} full-screen updates and ${PRESSES} key presses per session, median of ${ROUNDS} alternating rounds; load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")} before, ${loadAfter.map((l) => l.toFixed(1)).join(" ")} after (1/5/15 min), ${percentile(loads, 50).toFixed(1)} median of rounds`,
  );
  console.log(
    "  Keyway: viewer -ws-> server (+ PGlite) -tunnel-> agent -tcp-> Xvnc; ssh: viewer -tcp-> sshd -ssh-> ssh -R (aes128-gcm) -tcp-> Xvnc; direct: viewer -tcp-> Xvnc; each viewer in a process of its own",
  );
  console.log(
    `  ${"".padEnd(28)} ${"Keyway".padStart(9)} ${"ssh -R".padStart(9)} ${"direct".padStart(9)} ${"".padEnd(5)} ${"Keyway/ssh".padStart(11)} ${"Keyway/direct".padStart(14)}`,
  );
  const row = (name: string, key: keyof Figures, unit: string, digits: number) =>
    console.log(
      `  ${name.padEnd(28)} ${r(key).toFixed(digits).padStart(9)} ${o(key).toFixed(digits).padStart(9)} ${d(key).toFixed(digits).padStart(9)} ${unit.padEnd(5)} ${(r(key) / o(key)).toFixed(2).padStart(10)}x ${(r(key) / d(key)).toFixed(2).padStart(13)}x`,
    );
  row("full-screen updates", "fps", "/s", 1);
  row("  as bytes", "mbPerSecond", "MB/s", 0);
  row("key -> first byte p50", "firstByteP50", "ms", 2);
  row("key -> first byte p99", "firstByteP99", "ms", 2);
  row("key -> whole screen p50", "completeP50", "ms", 2);
  row("key -> whole screen p99", "completeP99", "ms", 2);
  console.log(
    `  added latency over direct (key -> first byte of the changed screen), p50: +${(r("firstByteP50") - d("firstByteP50")).toFixed(2)} ms, p99: +${(r("firstByteP99") - d("firstByteP99")).toFixed(2)} ms`,
  );
  console.log(
    `  added latency over direct, ssh -R: p50 +${(o("firstByteP50") - d("firstByteP50")).toFixed(2)} ms, p99 +${(o("firstByteP99") - d("firstByteP99")).toFixed(2)} ms`,
  );
  console.log(
    `  rounds (updates/s): Keyway ${runs.relay.map((f) => f.fps.toFixed(1)).join(" ")}, ssh ${runs.ssh.map((f) => f.fps.toFixed(1)).join(" ")}, direct ${runs.direct.map((f) => f.fps.toFixed(1)).join(" ")}`,
  );
}
