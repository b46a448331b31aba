import { execFileSync } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { signedText } from "../infra/crypto.ts";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "../modules/reporting/transports.ts";

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
 * five minutes off (replay), then keeps each point once by its `seq`. It can be taken down
 * (answers 503) and slowed, and counts what it was sent twice.
 */
export async function startReportReceiver(opts: {
  /** The project key the receiver was given (read at each request: keys can be reset). */
  key: () => string;
  /** The receiver's clock (epoch ms); the tests' platform runs on a manual clock. */
  now?: () => number;
  tls?: boolean;
}) {
  const now = opts.now ?? Date.now;
  const points: ReceivedPoint[] = [];
  const seen = new Set<number>();
  const state = { down: false, delayMs: 0, batches: 0, duplicates: 0, refused: 0 };
  const certificate = opts.tls ? selfSignedCertificate() : undefined;

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
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (state.down) return res.writeHead(503).end("maintenance");
      const refusal = verify(req, body);
      if (refusal) {
        state.refused += 1;
        return res.writeHead(401).end(refusal);
      }
      const batch = JSON.parse(body) as { points: ReceivedPoint[] };
      state.batches += 1;
      for (const point of batch.points) {
        if (seen.has(point.seq)) state.duplicates += 1;
        else {
          seen.add(point.seq);
          points.push(point);
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  };

  const server = certificate
    ? https.createServer(certificate, handler)
    : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `${certificate ? "https" : "http"}://127.0.0.1:${port}/keyway/ingest`,
    /** The certificate to trust (its own CA). */
    ca: certificate?.cert,
    points,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
