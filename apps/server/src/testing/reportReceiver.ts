import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { signedText } from "../infra/crypto.ts";
import {
  BATCH_HEADER,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
} from "../modules/reporting/transports.ts";

export interface ReceivedPoint {
  seq: number;
  machineCode: string;
  time: string;
  values: Record<string, unknown>;
}

/** A self-signed certificate for 127.0.0.1 / localhost (Debian's openssl); PEM texts. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "kw-tls-"));
  try {
    execFileSync(
      "/usr/bin/openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        path.join(dir, "key.pem"),
        "-out",
        path.join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return {
      key: readFileSync(path.join(dir, "key.pem"), "utf8"),
      cert: readFileSync(path.join(dir, "cert.pem"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A customer's report server, as the docs tell them to write one: it checks the signature
 * (HMAC-SHA256 of `timestamp.body` with the project key) and refuses a timestamp more than
 * five minutes off (replay), then keeps each point once by its `seq`. It can answer 503
 * (`down`), be slowed, be stopped outright (connections refused) and started again on the
 * same port, and counts what it was sent twice.
 */
export async function startReportReceiver(opts: {
  /** The project key the receiver was given (read at each request: keys can be reset). */
  key: () => string;
  /** The receiver's clock (epoch ms); the tests' platform runs on a manual clock. */
  now?: () => number;
  tls?: boolean;
  /** A certificate to serve (several receivers trusted through one CA); else a new one. */
  certificate?: { key: string; cert: string };
  /** Told once a batch's 2xx answer has been handed to the connection (n: 1, 2 …). */
  onAnswered?: (n: number, batchId: string) => void;
}) {
  const now = opts.now ?? Date.now;
  const points: ReceivedPoint[] = [];
  const seen = new Set<number>();
  /** `arrived`: requests whose body has come in, before any delay or refusal. */
  const state = { down: false, delayMs: 0, arrived: 0, batches: 0, duplicates: 0, refused: 0 };
  /** X-Keyway-Batch of each accepted batch, in arrival order (a resend appears twice). */
  const batchIds: string[] = [];
  const certificate = opts.tls ? (opts.certificate ?? selfSignedCertificate()) : undefined;

  function verify(req: IncomingMessage, body: string): string | null {
    const timestamp = String(req.headers[TIMESTAMP_HEADER] ?? "");
    const given = String(req.headers[SIGNATURE_HEADER] ?? "");
    if (!/^\d+$/.test(timestamp)) return "no timestamp";
    if (Math.abs(now() / 1000 - Number(timestamp)) > 300) return "stale timestamp";
    const expected = `sha256=${signedText(opts.key(), timestamp, body)}`;
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    return a.length === b.length && timingSafeEqual(a, b) ? null : "bad signature";
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", async () => {
      state.arrived += 1;
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (state.down) return res.writeHead(503).end("maintenance");
      const refusal = verify(req, body);
      if (refusal) {
        state.refused += 1;
        return res.writeHead(401).end(refusal);
      }
      const batch = JSON.parse(body) as { points: ReceivedPoint[] };
      state.batches += 1;
      const batchId = String(req.headers[BATCH_HEADER] ?? "");
      batchIds.push(batchId);
      const n = state.batches;
      for (const point of batch.points) {
        if (seen.has(point.seq)) state.duplicates += 1;
        else {
          seen.add(point.seq);
          points.push(point);
        }
      }
      res
        .writeHead(200, { "content-type": "application/json" })
        .end('{"ok":true}', () => opts.onAnswered?.(n, batchId));
    });
  };

  let server: http.Server | https.Server | undefined;
  let port = 0;
  async function listen() {
    const s = certificate ? https.createServer(certificate, handler) : http.createServer(handler);
    await new Promise<void>((resolve, reject) => {
      s.once("error", reject);
      s.listen(port, "127.0.0.1", resolve);
    });
    port = (s.address() as { port: number }).port;
    server = s;
  }
  async function stop() {
    const s = server;
    server = undefined;
    if (!s) return;
    await new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  }
  await listen();
  return {
    url: `${certificate ? "https" : "http"}://127.0.0.1:${port}/keyway/ingest`,
    /** The certificate to trust (its own CA). */
    ca: certificate?.cert,
    points,
    state,
    batchIds,
    /** Down for real: the port refuses connections until `start`. */
    stop,
    /** Listening again, on the same port. */
    start: listen,
    close: stop,
  };
}

const MOSQUITTO = "/usr/sbin/mosquitto";

/**
 * A customer's Mosquitto that can be stopped and started again on the same port, keeping
 * its sessions (persistence), with its log (connects and disconnects by client id).
 */
export async function startBroker() {
  if (!existsSync(MOSQUITTO)) throw new Error(`${MOSQUITTO} is missing: apt-get install mosquitto`);
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const free = (probe.address() as { port: number }).port;
      probe.close(() => resolve(free));
    });
  });
  const dir = mkdtempSync(path.join(tmpdir(), "kw-broker-"));
  const conf = path.join(dir, "mosquitto.conf");
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      "allow_anonymous true",
      "persistence true",
      `persistence_location ${dir}/`,
      "log_dest stderr",
      "log_type error",
      "log_type warning",
      "log_type notice",
      "log_type information",
      "connection_messages true",
      "",
    ].join("\n"),
  );
  const log: string[] = [];
  let broker: ChildProcess | undefined;
  const url = `mqtt://127.0.0.1:${port}`;

  async function start() {
    const child = spawn(MOSQUITTO, ["-c", conf], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout?.on("data", (d) => log.push(...String(d).split("\n").filter(Boolean)));
    child.stderr?.on("data", (d) => log.push(...String(d).split("\n").filter(Boolean)));
    broker = child;
    for (let i = 0; i < 100; i++) {
      const up = await new Promise<boolean>((resolve) => {
        const socket = net.connect(port, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve(true);
        });
        socket.once("error", () => resolve(false));
      });
      if (up) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error("mosquitto did not start");
  }
  /** SIGTERM: it saves its sessions and closes every connection; the port refuses. */
  async function stop() {
    const child = broker;
    broker = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  }
  await start();
  return {
    port,
    url,
    log,
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
