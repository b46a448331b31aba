/**
 * The peers of `npm run bench -- web`, started in the same run:
 * - nginx serving the same build as an operator would put it in front (precompressed files
 *   with brotli_static/gzip_static, hashed assets immutable, the API proxied to Keyway);
 * - the page before issue 17: BEFORE_COMMIT's tree, installed and built once into a cache
 *   directory, its own server started on its embedded defaults.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../apps/server/src/testing/ports.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
/** The last commit before issue 17's first-load work (one 3 MB bundle, no compression). */
export const BEFORE_COMMIT = "5b64982";
const BROTLI_MODULE = "/usr/lib/nginx/modules/ngx_http_brotli_static_module.so";

export interface Peer {
  url: string;
  what: string;
  stop(): Promise<void>;
}

/** Waits until `url` answers 200, or the child exits, or 3 minutes pass (a cold tsx start on a loaded machine). */
async function ready(url: string, child: ChildProcess, log: () => string) {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: exited (${child.exitCode})\n${log()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`${url}: not ready in 3 minutes\n${log()}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once("exit", () => done());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
  });
}

/** nginx on a free port: `dist` as files, /api, /eapi and /ws proxied to `upstream`. */
export async function startNginxPeer(dist: string, upstream: number): Promise<Peer> {
  const dir = mkdtempSync(path.join(tmpdir(), "keyway-bench-web-nginx-"));
  const port = await freePort();
  const brotli = existsSync(BROTLI_MODULE);
  const compressed = `${brotli ? "brotli_static on; " : ""}gzip_static on;`;
  writeFileSync(
    path.join(dir, "nginx.conf"),
    `${brotli ? `load_module ${BROTLI_MODULE};\n` : ""}worker_processes 1;
error_log ${dir}/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  sendfile on;
  server {
    listen 127.0.0.1:${port};
    root ${dist};
    ${compressed}
    location /assets/ { add_header Cache-Control "public, max-age=31536000, immutable"; }
    location ~ ^/(api|eapi|ws)(/|$) {
      proxy_pass http://127.0.0.1:${upstream};
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $http_connection;
    }
    location / { add_header Cache-Control "no-cache"; try_files $uri /index.html; }
  }
}
`,
  );
  const child = spawn(
    "nginx",
    ["-p", dir, "-c", path.join(dir, "nginx.conf"), "-g", "daemon off;"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = `http://localhost:${port}/login?language=en`;
  await ready(url, child, () => stderr);
  return {
    url,
    what: `nginx ${brotli ? "brotli_static + gzip_static" : "gzip_static (no brotli module: apt-get install libnginx-mod-http-brotli-static)"}, same build, API proxied to Keyway`,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} in ${cwd}: ${result.stderr?.toString()}`);
}

/**
 * BEFORE_COMMIT's tree in a cache directory, installed (its lock file predates npm's current
 * platform entries, so `npm install`, not `npm ci`) and its web app built: once, then reused.
 */
function prepareBefore(): string {
  const dir = path.join(tmpdir(), `keyway-bench-web-${BEFORE_COMMIT}`);
  if (existsSync(path.join(dir, "apps/web/dist/index.html"))) return dir;
  console.log(`  (preparing ${BEFORE_COMMIT}'s tree in ${dir}: npm install and build, once)`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync("git", ["archive", BEFORE_COMMIT], { cwd: ROOT, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${BEFORE_COMMIT}: ${archive.stderr}`);
  const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr}`);
  run("npm", ["install", "--no-audit", "--no-fund", "--engine-strict=false"], dir);
  run("npx", ["vite", "build"], path.join(dir, "apps/web"));
  return dir;
}

/** BEFORE_COMMIT's server (its web app, as that server served it) on its embedded defaults. */
export async function startBeforePeer(): Promise<Peer> {
  const dir = prepareBefore();
  const data = mkdtempSync(path.join(tmpdir(), "keyway-bench-web-before-data-"));
  const port = await freePort();
  const child = spawn("node", ["--import", "tsx", "apps/server/src/main.ts"], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "production",
      PORT: String(port),
      MQTT_PORT: String(await freePort()),
      DATA_DIR: data,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const url = `http://localhost:${port}/login?language=en`;
  await ready(url, child, () => stderr);
  return {
    url,
    what: `commit ${BEFORE_COMMIT}'s build on its own server`,
    async stop() {
      await stopChild(child);
      rmSync(data, { recursive: true, force: true });
    },
  };
}
