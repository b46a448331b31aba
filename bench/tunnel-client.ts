import { readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { parseArgs } from "node:util";
import { percentile } from "./stats.ts";

/**
 * The browser side of `npm run bench -- tunnel`, in its own process: one big download
 * (MB/s) and then sequential small requests on one keep-alive connection (latency), against
 * `--url`, sending `--host` and `--cookie` when given. An https URL (nginx in `--deploy`)
 * is dialled with SNI `--servername` and trusts the CA in the file `--ca`. Prints one JSON line.
 */
const { values } = parseArgs({
  options: {
    url: { type: "string" },
    host: { type: "string" },
    cookie: { type: "string" },
    bytes: { type: "string" },
    requests: { type: "string" },
    servername: { type: "string" },
    ca: { type: "string" },
  },
});
const base = values.url ?? "";
const headers: Record<string, string> = {};
if (values.host) headers.host = values.host;
if (values.cookie) headers.cookie = values.cookie;
const secure = base.startsWith("https:");
const agent = secure
  ? new https.Agent({
      keepAlive: true,
      maxSockets: 1,
      servername: values.servername,
      ca: values.ca ? readFileSync(values.ca) : undefined,
    })
  : new http.Agent({ keepAlive: true, maxSockets: 1 });

function get(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).get(`${base}${path}`, { headers, agent }, (res) => {
      // A proxy's or relay's error page must not pass for a quick answer.
      if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode}`));
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
      });
      res.on("end", () => resolve(size));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

const bytes = Number(values.bytes ?? 1024 ** 3);
const requests = Number(values.requests ?? 2000);
await get("/bytes?n=1048576"); // warm-up
const started = process.hrtime.bigint();
const received = await get(`/bytes?n=${bytes}`);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
if (received !== bytes) throw new Error(`received ${received} of ${bytes} bytes`);
process.send?.("downloaded"); // the parent may read each process's CPU time between phases

for (let i = 0; i < 200; i++) await get("/small");
const samples: number[] = [];
for (let i = 0; i < requests; i++) {
  const t = process.hrtime.bigint();
  await get("/small");
  samples.push(Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(
  JSON.stringify({
    mbPerSecond: bytes / 1024 / 1024 / seconds,
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
  }),
);
agent.destroy();
