/**
 * `npm run bench -- <name>`: runs bench/<name>.ts, which prints its figures and the ratio
 * to a baseline measured in the same run.
 * `npm run bench -- <tunnel|gateway> --deploy`: the same figures as deployed (docs/deploy.md:
 * nginx, two server processes, PostgreSQL, Redis, Mosquitto), beside the single-node ones.
 */
const name = process.argv[2];
const deploy = process.argv.slice(3).includes("--deploy");
const available = ["alarms", "devices", "gateway", "push", "reporting", "tunnel", "web"];
const deployable = ["gateway", "tunnel"];
if (!name || !available.includes(name) || (deploy && !deployable.includes(name))) {
  console.error(
    `Usage: npm run bench -- <${available.join("|")}>\n       npm run bench -- <${deployable.join("|")}> --deploy`,
  );
  process.exit(64);
}
const bench = (await import(`./${name}.ts`)) as {
  run: (options: { deploy: boolean }) => Promise<void>;
};
await bench.run({ deploy });
process.exit(0);

export {};
