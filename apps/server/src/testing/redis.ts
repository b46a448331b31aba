import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { freePort } from "./ports.ts";

export interface TestRedis {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A real redis-server of our own (Debian's redis-server), nothing kept on disk. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      if (out.includes("Ready to accept connections")) resolve();
    });
  });
  child.stdout?.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}
