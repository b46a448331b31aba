import { loadavg } from "node:os";
import { sql } from "drizzle-orm";
import Fastify from "fastify";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { hashToken } from "../apps/server/src/infra/crypto.ts";
import { toMachine } from "../apps/server/src/modules/devices/machine.ts";
import { deviceGroups, deviceLinks, devices } from "../apps/server/src/modules/devices/schema.ts";
import {
  enterpriseDevices,
  enterpriseMembers,
  enterprises,
} from "../apps/server/src/modules/enterprises/schema.ts";
import { fixedRate, maxRate, type StartedServer, startServer } from "./devices-rate.ts";
import { fmt, percentile } from "./stats.ts";

const DEVICES = Number(process.env.BENCH_DEVICES ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 120);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/**
 * The rate half's rounds: a round's server CPU per call moves 1.7–2.8 ms on a shared 2-core
 * machine, log or none, so four rounds cannot resolve the log's 10 % aim; eight can.
 */
const RATE_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** `lists` or `rate`: one half only (profiling, iterating). */
const ONLY = process.env.BENCH_ONLY;

/**
 * `npm run bench -- devices`: the device lists (docs/architecture/devices.md#personal-lists).
 *
 * Lists: the personal list (POST /api/machine/select, no page: the first page of 5000) and
 * the enterprise list (/eapi/ent/c/manager/device/group/devicelist, page 1 of 5000) at
 * BENCH_DEVICES devices each — the whole call (auth, access check, query, mapping, JSON out
 * and the client's JSON parse) beside a hand-written SQL query returning the same rows on
 * the same database, in alternating rounds. DATABASE_URL selects PostgreSQL, else PGlite.
 *
 * Rate: the server as `npm start` runs it (main.ts, PGlite in a fresh data dir, the demo
 * seed), the demo user's POST /api/machine/select at a fixed BENCH_RATE/s, and its most calls
 * per second, with the request log on (LOG_LEVEL info) and off (silent), alternating rounds.
 */
export async function run() {
  console.log(
    `devices: load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} at start`,
  );
  if (ONLY !== "rate") await lists();
  if (ONLY !== "lists") await rate();
  console.log(
    `devices: load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} at end`,
  );
}

type Timed = Record<string, () => Promise<unknown>>;

/** Each round runs every peer RUNS/ROUNDS times, the order turned each round; all samples. */
async function alternate(peers: Timed, rounds: number, perRound: number) {
  const samples: Record<string, number[]> = Object.fromEntries(
    Object.keys(peers).map((name) => [name, []]),
  );
  for (const fn of Object.values(peers)) for (let i = 0; i < 3; i++) await fn();
  for (let round = 0; round < rounds; round++) {
    const names = Object.keys(peers);
    if (round % 2) names.reverse();
    for (let i = 0; i < perRound; i++) {
      for (const name of names) {
        const start = process.hrtime.bigint();
        await peers[name]();
        samples[name].push(Number(process.hrtime.bigint() - start) / 1e6);
      }
    }
  }
  return samples;
}

async function lists() {
  const database = await createTestDatabase();
  const app = await buildApp({
    config: testConfig({ WEB_DIST: "/nonexistent" }),
    db: database.db,
    logger: false,
  });
  const { db } = database;
  const now = new Date();
  const user = await app.services.accounts.createActivatedUser({
    account: { channel: "email", email: "bench@example.com" },
    password: "bench123",
    name: "Bench",
  });
  const [enterprise] = await db
    .insert(enterprises)
    .values({ name: "Bench Co", createdAt: now })
    .returning();
  await db
    .insert(enterpriseMembers)
    .values({ enterpriseId: enterprise.id, userId: user.id, kind: "member", createdAt: now });
  const groups = await db
    .insert(deviceGroups)
    .values(
      ["Line A", "Line B", "Line C"].map((name) => ({ userId: user.id, name, createdAt: now })),
    )
    .returning({ id: deviceGroups.id });
  // DEVICES enterprise devices, and DEVICES more in the user's personal list.
  for (let start = 0; start < 2 * DEVICES; start += 1000) {
    const n = Math.min(1000, 2 * DEVICES - start);
    const rows = await db
      .insert(devices)
      .values(
        Array.from({ length: n }, (_, i) => ({
          code: `KW-BENCH-${String(start + i).padStart(6, "0")}`,
          model: i % 3 === 0 ? "MT8071iE" : "FX5U",
          secretHash: hashToken(`s${start + i}`),
          passwordHash: "unused",
          online: i % 2 === 0,
          createdAt: now,
        })),
      )
      .returning({ id: devices.id, code: devices.code });
    const [held, personal] = [
      rows.filter((_, i) => start + i < DEVICES),
      rows.filter((_, i) => start + i >= DEVICES),
    ];
    if (held.length)
      await db.insert(enterpriseDevices).values(
        held.map((r) => ({
          enterpriseId: enterprise.id,
          deviceId: r.id,
          type: 1,
          name: r.code,
          createdAt: now,
        })),
      );
    if (personal.length)
      await db.insert(deviceLinks).values(
        personal.map((r, i) => ({
          deviceId: r.id,
          userId: user.id,
          role: "akey" as const,
          name: r.code,
          groupId: i % 4 === 3 ? null : groups[i % 4].id,
          createdAt: new Date(now.getTime() + i),
        })),
      );
  }
  const login = await app.inject({
    method: "POST",
    url: "/api/user/login",
    payload: { loginName: "bench@example.com", loginPwd: "bench123" },
  });
  const token = login.json().hwdata.result.token as string;
  const expect = (n: number) => {
    if (n !== DEVICES) throw new Error(`bad answer: ${n} rows`);
  };
  const call = (url: string, payload: object) => async () => {
    const res = await app.inject({ method: "POST", url, headers: { cloudtoken: token }, payload });
    const body = res.json();
    if (body.hwcode !== 0) throw new Error(`bad answer: ${res.body.slice(0, 200)}`);
    expect(body.hwdata.list.length);
  };

  type Row = Record<string, unknown>;
  const rowsIn = (result: unknown) =>
    ((result as { rows?: Row[] }).rows ?? (result as Row[])) as Row[];
  const personalSql = async () =>
    rowsIn(
      await db.execute(sql`
        select d.id, d.code, d.model, d.check_type, d.cloud_service, d.online, d.version,
          d.ip, d.iccid, d.location_way, d.lat, d.lng, d.address, d.created_at, l.role,
          l.name, l.alias, l.remark, l.group_id, l.created_at as linked_at,
          g.name as group_name, coalesce(cam.account_id, 0) as ezviz_account_id,
          cast(count(*) over () as int) as total
        from device_links l
        join devices d on d.id = l.device_id
        left join device_groups g on g.id = l.group_id
        left join camera_bindings cam on cam.device_id = l.device_id
        where l.user_id = ${user.id}
        order by l.created_at desc, l.id desc limit ${DEVICES}`),
    );
  const enterpriseSql = async () =>
    rowsIn(
      await db.execute(sql`
        select d.id, d.code, d.model, d.check_type, d.cloud_service, d.online, d.version,
          d.ip, d.iccid, d.location_way, d.lat, d.lng, d.address, d.created_at,
          ed.name as held_name, ed.group_id, ed.maintenance_remark, g.name as group_name,
          coalesce(cam.account_id, 0) as ezviz_account_id,
          cast(count(*) over () as int) as total
        from enterprise_devices ed
        join devices d on d.id = ed.device_id
        left join enterprise_groups g on g.id = ed.group_id
        left join camera_bindings cam on cam.device_id = ed.device_id
        where ed.enterprise_id = ${enterprise.id} and ed.type = 1
        order by ed.device_id desc limit ${DEVICES}`),
    );

  // The peer of the call's shape: a bare Fastify route answering the hand-written query's rows
  // as the same Machines (the SPEC's mapping, toMachine) in the same envelope; no auth, no
  // access check, nothing else of Keyway's.
  const bare = Fastify();
  const device = (r: Row) =>
    ({
      id: r.id,
      code: r.code,
      model: r.model,
      checkType: r.check_type,
      cloudService: r.cloud_service,
      online: r.online,
      version: r.version,
      ip: r.ip,
      iccid: r.iccid,
      locationWay: r.location_way,
      lat: r.lat,
      lng: r.lng,
      address: r.address,
      createdAt: new Date(r.created_at as string),
      ezvizAccountId: r.ezviz_account_id,
    }) as Parameters<typeof toMachine>[0];
  const answer = (rows: Row[], list: unknown[]) => ({
    hwcode: 0,
    hwdata: { list, total: rows[0]?.total ?? 0, page: 1, pageSize: DEVICES },
    msg: "成功",
  });
  bare.post("/personal", async () => {
    const rows = await personalSql();
    return answer(
      rows,
      rows.map((r) =>
        toMachine(device(r), {
          link: {
            role: r.role as "akey",
            name: r.name as string,
            alias: r.alias as string,
            remark: r.remark as string,
            groupId: r.group_id as number | null,
            createdAt: new Date(r.linked_at as string),
          },
          groupName: r.group_name as string | null,
        }),
      ),
    );
  });
  bare.post("/enterprise", async () => {
    const rows = await enterpriseSql();
    return answer(
      rows,
      rows.map((r) =>
        toMachine(device(r), {
          eid: enterprise.id,
          name: r.held_name as string,
          groupId: r.group_id as number | null,
          groupName: r.group_name as string | null,
          maintenanceRemark: r.maintenance_remark as string,
        }),
      ),
    );
  });
  const bareCall = (url: string) => async () => {
    const res = await bare.inject({ method: "POST", url, payload: {} });
    expect(res.json().hwdata.list.length);
  };

  const samples = await alternate(
    {
      personal: call("/api/machine/select", {}),
      personalSql: async () => expect((await personalSql()).length),
      personalBare: bareCall("/personal"),
      enterprise: call("/eapi/ent/c/manager/device/group/devicelist", {
        eid: enterprise.id,
        page: 1,
        pageSize: DEVICES,
      }),
      enterpriseSql: async () => expect((await enterpriseSql()).length),
      enterpriseBare: bareCall("/enterprise"),
    },
    ROUNDS,
    Math.ceil(RUNS / ROUNDS),
  );
  const body = (
    await app.inject({
      method: "POST",
      url: "/api/machine/select",
      headers: { cloudtoken: token },
      payload: {},
    })
  ).body;
  const size = body.length;
  // The peer answers what the call does (a Machine differs only in `screen`, which the bare
  // route does not look up).
  const peerBody = (await bare.inject({ method: "POST", url: "/personal", payload: {} })).body;
  const strip = (text: string) =>
    JSON.stringify(
      (JSON.parse(text).hwdata.list as Record<string, unknown>[]).map(({ screen, ...m }) => m),
    );
  if (strip(peerBody) !== strip(body)) throw new Error("the bare route answers other Machines");
  console.log(
    `devices: lists at ${DEVICES} devices, ${ROUNDS} alternating rounds, ${samples.personal.length} runs each, ${database.kind}; answer ${(size / 1e6).toFixed(2)} MB; load average ${loadavg()[0].toFixed(1)}`,
  );
  const line = (label: string, name: string) => {
    const [call, base, floor] = [samples[name], samples[`${name}Sql`], samples[`${name}Bare`]];
    const m = [percentile(call, 50), percentile(base, 50), percentile(floor, 50)];
    const p = [percentile(call, 99), percentile(base, 99), percentile(floor, 99)];
    const ratio = (a: number, b: number) =>
      `median ${(m[a] / m[b]).toFixed(2)}x, p99 ${(p[a] / p[b]).toFixed(2)}x`;
    console.log(`  ${label}: median ${fmt(m[0])}, p99 ${fmt(p[0])}`);
    console.log(`    hand-written SQL, same rows: median ${fmt(m[1])}, p99 ${fmt(p[1])}`);
    console.log(
      `    bare Fastify route answering that SQL as the same JSON: median ${fmt(m[2])}, p99 ${fmt(p[2])}`,
    );
    console.log(
      `    ratio call/SQL: ${ratio(0, 1)}; bare route/SQL: ${ratio(2, 1)}; call/bare route: ${ratio(0, 2)}`,
    );
  };
  line("personal   POST /api/machine/select (no page)", "personal");
  line("enterprise POST /eapi/ent/c/manager/device/group/devicelist", "enterprise");
  await bare.close();
  await app.close();
  await database.close();
}

async function rate() {
  const servers: Record<string, StartedServer> = {
    "log on ": await startServer("info"),
    "log off": await startServer("silent"),
  };
  try {
    const names = Object.keys(servers);
    const fixed = Object.fromEntries(
      names.map((n) => [n, { p50: [] as number[], p99: [] as number[] }]),
    );
    const most = Object.fromEntries(names.map((n) => [n, [] as number[]]));
    const cpu = Object.fromEntries(names.map((n) => [n, [] as number[]]));
    // Unrecorded: the first flat-out seconds of a fresh server compile and grow its heap, which
    // cost it a fifth more CPU per call than the rounds after.
    for (const name of names) await maxRate(servers[name], 16, 3);
    for (let round = 0; round < RATE_ROUNDS; round++) {
      for (const name of round % 2 ? [...names].reverse() : names) {
        const f = await fixedRate(servers[name], RATE, SECONDS);
        fixed[name].p50.push(f.p50);
        fixed[name].p99.push(f.p99);
        const flatOut = await maxRate(servers[name], 16, SECONDS / 2);
        most[name].push(flatOut.perSecond);
        cpu[name].push(flatOut.cpuMsPerCall);
      }
    }
    console.log(
      `devices: POST /api/machine/select as npm start serves it (main.ts, PGlite, demo seed: 1 device), after 3 s flat out to warm each, ${RATE_ROUNDS} alternating rounds of ${SECONDS} s at ${RATE}/s and ${SECONDS / 2} s flat out (16 callers); medians of the rounds; load average ${loadavg()[0].toFixed(1)}`,
    );
    for (const name of Object.keys(servers)) {
      console.log(
        `  ${name}: at ${RATE}/s p50 ${fmt(percentile(fixed[name].p50, 50))}, p99 ${fmt(percentile(fixed[name].p99, 50))} (worst round ${fmt(Math.max(...fixed[name].p99))}); most ${percentile(most[name], 50).toFixed(0)} calls/s, server CPU ${percentile(cpu[name], 50).toFixed(3)} ms a call (rounds ${cpu[name].map((c) => c.toFixed(3)).join(", ")})`,
      );
    }
    const [on, off] = [percentile(most["log on "], 50), percentile(most["log off"], 50)];
    const [cpuOn, cpuOff] = [percentile(cpu["log on "], 50), percentile(cpu["log off"], 50)];
    // The cost is the server's CPU per call with the log against without; the rate's ratio
    // swings with whatever else the shared machine runs meanwhile.
    // Each round's pair ran back to back, the order turned: their ratios show the spread.
    const pairs = cpu["log on "].map((c, i) => (c / cpu["log off"][i] - 1) * 100);
    console.log(
      `  request log cost: ${((cpuOn / cpuOff - 1) * 100).toFixed(1)} % more server CPU per call (the rounds' pairs: median ${percentile(pairs, 50).toFixed(1)} %, ${Math.min(...pairs).toFixed(1)} to ${Math.max(...pairs).toFixed(1)} %; calls/s off/on ${(off / on).toFixed(2)}x, ${((off / on - 1) * 100).toFixed(1)} %)`,
    );
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
}
