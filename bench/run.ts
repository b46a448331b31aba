/**
 * `npm run bench -- <name>`: runs bench/<name>.ts, which prints its figures and the ratio
 * to a baseline measured in the same run.
 */
const name = process.argv[2];
const available = ["alarms", "devices", "gateway", "push", "reporting", "tunnel", "web"];
if (!name || !available.includes(name)) {
  console.error(`Usage: npm run bench -- <${available.join("|")}>`);
  process.exit(64);
}
const bench = (await import(`./${name}.ts`)) as { run: () => Promise<void> };
await bench.run();
process.exit(0);

export {};
