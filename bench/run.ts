/**
 * `npm run bench -- <name>`: runs bench/<name>.ts, which prints its figures and the ratio
 * to a baseline measured in the same run.
 * `npm run bench -- <tunnel|gateway> --deploy`: the same figures as deployed (docs/deploy.md:
 * nginx, two server processes, PostgreSQL, Redis, Mosquitto), beside the single-node ones.
 * `npm run bench -- all`: every bench in sequence, each in a process of its own (docs/performance.md).
 */
import { spawnSync } from "node:child_process";

// First, unless this is it: the benches built as the server ships (bench/bundle.ts), run
// with the same Node flags (a profile's too) but without tsx.
if (!process.env.BENCH_BUILT) {
  const { bundleBenches } = await import("./bundle.ts");
  const built = await bundleBenches();
  const flags: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const flag = process.execArgv[i];
    if (flag === "--import" && process.execArgv[i + 1] === "tsx") i++;
    else if (flag !== "--import=tsx") flags.push(flag);
  }
  const result = spawnSync(process.execPath, [...flags, built, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, BENCH_BUILT: "1" },
  });
  process.exit(result.status ?? 1);
}

const name = process.argv[2];
const deploy = process.argv.slice(3).includes("--deploy");
const available = [
  "alarms",
  "devices",
  "footprint",
  "gateway",
  "push",
  "reporting",
  "tunnel",
  "vnc",
  "web",
];
const deployable = ["gateway", "tunnel"];
if (name === "all" && !deploy) {
  // One process per bench: each starts its own servers and peers and exits when done.
  let failed = 0;
  for (const one of available) {
    console.log(`\n== npm run bench -- ${one}`);
    // process.argv[1]: the built benches (see above).
    const result = spawnSync(process.execPath, [...process.execArgv, process.argv[1], one], {
      stdio: "inherit",
    });
    if (result.status !== 0) failed++;
  }
  process.exit(failed ? 1 : 0);
}
if (!name || !available.includes(name) || (deploy && !deployable.includes(name))) {
  console.error(
    `Usage: npm run bench -- <${available.join("|")}|all>\n       npm run bench -- <${deployable.join("|")}> --deploy`,
  );
  process.exit(64);
}
const bench = (await import(`./${name}.ts`)) as {
  run: (options: { deploy: boolean }) => Promise<void>;
};
await bench.run({ deploy });
process.exit(0);
