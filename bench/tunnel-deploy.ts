/**
 * `npm run bench -- tunnel --deploy`: remote access as deployed (docs/deploy.md) — the
 * client over HTTPS to nginx on a visit host, two server processes (the production build from
 * keyway-server@.service) on PostgreSQL, Redis and Mosquitto, and the real agent
 * (keyway-agent.service) with its tunnel through nginx (wss, the private CA trusted through
 * NODE_EXTRA_CA_CERTS) to bench/tunnel-target.ts. The same figures as `bench -- tunnel` (a
 * BENCH_BYTES download in MB/s, default 512 MiB here, then BENCH_REQUESTS small requests on
 * one keep-alive connection, p50/p99) and the CPU each process spends, for a visit landing
 * on the node that holds the tunnel and for one landing on the other node (carried between
 * nodes, docs/architecture/scale-out.md#the-tunnel-registry). The stack's nginx spreads requests round robin; to choose
 * the node, the same template is rendered twice more with one node each (those two nginx only
 * carry the visits; the agent's tunnel stays on the stack's nginx). Peers in the same run, in alternating rounds (BENCH_ROUNDS):
 * direct loopback to the target, and the single-node relay `bench -- tunnel` measures
 * (server in this process on PGlite, agent over plain ws://).
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import {
  HOST,
  provisionDevice,
  RESOLVE_TEST_HOSTS,
  requestThrough,
  until,
  VISIT_DOMAIN,
} from "../tests/deploy/stack.ts";
import { renderExample, type Started, startUnit, unitCommand } from "../tests/deploy/units.ts";
import {
  apiCall,
  type DeployStack,
  startDeployStack,
  startNginxOn,
  tunnelHolder,
} from "./deploy-stack.ts";
import { cpuSeconds, rssOf } from "./stats.ts";
import {
  client,
  type Figures,
  median,
  REQUESTS,
  ROUNDS,
  startSingleNode,
  startTarget,
} from "./tunnel.ts";

/**
 * Half of `bench -- tunnel`'s 1 GiB by default: through two nodes on this shared 2-core
 * machine a GiB takes up to a minute a path, and the run is to stay within a few minutes.
 */
const BYTES = Number(process.env.BENCH_BYTES ?? 512 * 1024 ** 2);

type Path = "direct" | "single" | "holder" | "other";

export async function runDeploy() {
  const began = Date.now();
  const loadBefore = loadavg();
  let stack: DeployStack | undefined;
  try {
    stack = await startDeployStack({ label: "bench-tunnel", nginx: true, demo: true });
    const s = stack;
    // Stopped with the stack, so that an interrupted run stops them too.
    const target = await startTarget();
    s.onClose(() => target.stop());
    const setUpSeconds = (Date.now() - began) / 1000;

    // A device provisioned by the doc's block, added by its owner through nginx.
    const device = await provisionDevice(s.layout, s.broker);
    const login = await apiCall(s, "/api/user/login", {
      loginName: "demo@keyway.local",
      loginPwd: "demo1234",
      terminalUUID: `bench-${Date.now()}`,
      terminalName: "Bench",
      terminalType: "ops",
    });
    if (login.hwcode !== 0) throw new Error(`login: ${JSON.stringify(login)}`);
    const token = login.hwdata.result.token as string;
    const added = await apiCall(
      s,
      "/api/machine/add",
      { machineName: "Bench target", machineCode: device.code, machinePwd: device.password },
      token,
    );
    if (added.hwcode !== 0) throw new Error(`machine/add: ${JSON.stringify(added)}`);
    const deviceId = added.hwdata.machine_id as number;

    // The agent as keyway-agent.service runs it, its target the bench's web server.
    writeFileSync(
      s.etc("/etc/keyway/agent.env"),
      renderExample("deploy/agent.env.example", {
        KEYWAY_SERVER: `mqtts://mqtt.${HOST}:${s.ports.mqtts}`,
        KEYWAY_TUNNEL: `wss://${HOST}:${s.ports.https}/tunnel`,
        KEYWAY_CODE: device.code,
        KEYWAY_TARGET: `127.0.0.1:${target.port}`,
        KEYWAY_AGENT_OPTIONS: "--location-every 0 --backoff-max 1",
        NODE_EXTRA_CA_CERTS: s.certs.ca,
      }),
    );
    writeFileSync(s.etc("/etc/keyway/agent.secret"), `${device.secret}\n`, { mode: 0o600 });
    const agent: Started = startUnit(unitCommand("keyway-agent.service", s.layout), {
      NODE_OPTIONS: `--import=${RESOLVE_TEST_HOSTS}`,
    });
    s.onClose(() => agent.stop(10_000));
    const holderPort = await until(
      () => tunnelHolder(s, deviceId),
      () => `the agent's tunnel on a node\n${agent.output().slice(-2000)}\n${s.nodeLogs()}`,
      90_000,
    );
    const holder = s.nodes.find((n) => n.port === holderPort);
    const other = s.nodes.find((n) => n.port !== holderPort);
    if (!holder || !other) throw new Error(`the tunnel is on ${holderPort}, not one of ours`);
    const viaHolder = await startNginxOn(s, holder.port);
    const viaOther = await startNginxOn(s, other.port);

    // A visit issued through nginx; its ticket exchanged for the visit cookie on its host.
    const issued = await apiCall(
      s,
      "/api/v1/audit/getValidVisitUrl",
      { machineID: deviceId },
      token,
    );
    if (issued.hwcode !== 0) throw new Error(`getValidVisitUrl: ${JSON.stringify(issued)}`);
    const visit = new URL(issued.hwdata.url as string);
    if (!visit.hostname.endsWith(`.${VISIT_DOMAIN}`)) throw new Error(`visit URL ${visit}`);
    const opened = await requestThrough(visit.toString(), {}, s.certs.ca);
    const cookie = (opened.headers["set-cookie"]?.[0] ?? "").split(";")[0];
    if (!cookie) throw new Error(`no visit cookie: HTTP ${opened.status} ${opened.body}`);
    const throughNginx = (port: number) => (onDownloaded?: () => void) =>
      client(
        `https://127.0.0.1:${port}`,
        [
          ...["--host", visit.host, "--cookie", cookie],
          ...["--servername", visit.hostname, "--ca", s.certs.ca],
        ],
        { bytes: BYTES, onDownloaded },
      );

    const relay = await startSingleNode(target.port);
    s.onClose(() => relay.stop());
    const paths: Record<Path, (onDownloaded?: () => void) => Promise<Figures>> = {
      direct: () => client(`http://127.0.0.1:${target.port}`, [], { bytes: BYTES }),
      single: () =>
        client(`http://127.0.0.1:${relay.port}`, ["--host", relay.host, "--cookie", relay.cookie], {
          bytes: BYTES,
        }),
      holder: throughNginx(viaHolder.port),
      other: throughNginx(viaOther.port),
    };
    // Where the CPU goes on the two deployed paths, for the download and for the small
    // requests apart: nginx (the visit's and the tunnel's), each node, the agent. A cost per
    // GiB holds on a shared machine where MB/s does not.
    const processes = {
      nginx: () =>
        cpuSeconds(s.nginx?.child.pid) + cpuSeconds(viaHolder.pid) + cpuSeconds(viaOther.pid),
      holder: () => cpuSeconds(holder.process.child.pid),
      other: () => cpuSeconds(other.process.child.pid),
      agent: () => cpuSeconds(agent.child.pid),
    };
    type Cpu = Record<keyof typeof processes, number>;
    const readCpu = () =>
      Object.fromEntries(Object.entries(processes).map(([k, read]) => [k, read()])) as Cpu;
    const zero = (): Cpu => ({ nginx: 0, holder: 0, other: 0, agent: 0 });
    const cpu = {
      holder: { download: zero(), small: zero() },
      other: { download: zero(), small: zero() },
    };
    const add = (into: Cpu, from: Cpu, to: Cpu) => {
      for (const k of Object.keys(into) as Array<keyof Cpu>) into[k] += to[k] - from[k];
    };
    const peakRss = { holder: 0, other: 0 };
    const sampler = setInterval(() => {
      peakRss.holder = Math.max(peakRss.holder, rssOf(holder.process.child.pid));
      peakRss.other = Math.max(peakRss.other, rssOf(other.process.child.pid));
    }, 200);
    sampler.unref(); // a failed round must not keep the process alive

    // Rounds alternate the paths so that each sees the same load on this shared machine;
    // each figure is the median over the rounds.
    const runs: Record<Path, Figures[]> = { direct: [], single: [], holder: [], other: [] };
    const roundsBegan = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(paths) as Path[]) {
        if (name !== "holder" && name !== "other") {
          runs[name].push(await paths[name]());
          continue;
        }
        const start = readCpu();
        let downloaded = start;
        runs[name].push(
          await paths[name](() => {
            downloaded = readCpu();
          }),
        );
        const end = readCpu();
        add(cpu[name].download, start, downloaded);
        add(cpu[name].small, downloaded, end);
      }
      // The comparison holds only while the tunnel stays where it was.
      const now = await tunnelHolder(s, deviceId);
      if (now !== holder.port) throw new Error(`the tunnel moved from ${holder.port} to ${now}`);
    }
    clearInterval(sampler);
    const roundsSeconds = (Date.now() - roundsBegan) / 1000;
    const m = Object.fromEntries(
      (Object.keys(runs) as Path[]).map((k) => [k, median(runs[k])]),
    ) as Record<Path, Figures>;

    const col = (v: number, digits: number) => v.toFixed(digits).padStart(9);
    const ratio = (v: number) => `${v.toFixed(2)}x`.padStart(7);
    const row = (name: string, key: keyof Figures, unit: string, digits: number) =>
      console.log(
        `  ${name.padEnd(18)} ${col(m.holder[key], digits)} ${col(m.other[key], digits)} ${col(m.single[key], digits)} ${col(m.direct[key], digits)} ${unit.padEnd(5)}` +
          ` ${ratio(m.holder[key] / m.single[key])} ${ratio(m.other[key] / m.single[key])} ${ratio(m.holder[key] / m.direct[key])} ${ratio(m.other[key] / m.direct[key])}`,
      );
    const loadAfter = loadavg();
    console.log(
      `tunnel --deploy: ${(BYTES / 1024 ** 3).toFixed(2)} GiB download and ${REQUESTS} small requests on one keep-alive connection, median of ${ROUNDS} alternating rounds; load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")} before, ${loadAfter.map((l) => l.toFixed(1)).join(" ")} after (1/5/15 min, ${cpus().length} cores)`,
    );
    console.log(
      "  deployed: client -https-> nginx -> node (-> the other node) -> nginx -wss-> agent -> target; two nodes (production build) on PostgreSQL, Redis, Mosquitto",
    );
    console.log(
      `  ${"".padEnd(18)} ${"holder".padStart(9)} ${"other".padStart(9)} ${"1 node".padStart(9)} ${"direct".padStart(9)} ${"".padEnd(5)} ${"h/1node".padStart(7)} ${"o/1node".padStart(7)} ${"h/dir".padStart(7)} ${"o/dir".padStart(7)}`,
    );
    row("throughput", "mbPerSecond", "MB/s", 0);
    row("small request p50", "p50", "ms", 3);
    row("small request p99", "p99", "ms", 3);
    console.log(
      `  added latency over direct, p50: holder +${(m.holder.p50 - m.direct.p50).toFixed(3)} ms, other +${(m.other.p50 - m.direct.p50).toFixed(3)} ms, 1 node +${(m.single.p50 - m.direct.p50).toFixed(3)} ms`,
    );
    const perGiB = (BYTES / 1024 ** 3) * ROUNDS;
    const perThousand = ((REQUESTS + 200) / 1000) * ROUNDS;
    const spent = (c: Cpu, per: number) =>
      `nginx ${(c.nginx / per).toFixed(2)}, node with the tunnel ${(c.holder / per).toFixed(2)}, other node ${(c.other / per).toFixed(2)}, agent ${(c.agent / per).toFixed(2)}`;
    for (const name of ["holder", "other"] as const)
      console.log(
        `  CPU seconds, ${name} path: per GiB downloaded: ${spent(cpu[name].download, perGiB)}; per 1,000 small requests: ${spent(cpu[name].small, perThousand)}`,
      );
    console.log(
      `  peak RSS: node holding the tunnel ${(peakRss.holder / 1024 ** 2).toFixed(0)} MiB, other node ${(peakRss.other / 1024 ** 2).toFixed(0)} MiB`,
    );
    console.log(
      '  "holder"/"other": the visit through nginx (HTTPS, HTTP/1.1) landing on the node that holds the tunnel / on the other node, which carries it over; "1 node": `bench -- tunnel`\'s relay (plain HTTP, one process + PGlite, agent over ws://); "direct": client to target on loopback',
    );
    console.log(
      `  timing: stack up in ${setUpSeconds.toFixed(0)} s, rounds ${roundsSeconds.toFixed(0)} s, whole run ${((Date.now() - began) / 1000).toFixed(0)} s`,
    );
  } finally {
    await stack?.close();
  }
}
