import { sql } from "drizzle-orm";
import { buildApp } from "../apps/server/src/app.ts";
import { testConfig } from "../apps/server/src/config.ts";
import { createTestDatabase } from "../apps/server/src/db/testing.ts";
import { hashToken } from "../apps/server/src/infra/crypto.ts";
import { devices } from "../apps/server/src/modules/devices/schema.ts";
import {
  enterpriseDevices,
  enterpriseMembers,
  enterprises,
} from "../apps/server/src/modules/enterprises/schema.ts";
import { fmt, percentile, timeRuns } from "./stats.ts";

const DEVICES = 5000;
const RUNS = 60;

/**
 * The enterprise device list at 5000 devices: the whole call (auth, access check, query,
 * mapping, JSON out and the client's JSON parse) against the same query in plain SQL on the
 * same database as the baseline. DATABASE_URL selects a PostgreSQL server, else PGlite.
 */
export async function run() {
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
  for (let start = 0; start < DEVICES; start += 1000) {
    const rows = await db
      .insert(devices)
      .values(
        Array.from({ length: 1000 }, (_, i) => ({
          code: `KW-BENCH-${String(start + i).padStart(5, "0")}`,
          model: i % 3 === 0 ? "MT8071iE" : "FX5U",
          secretHash: hashToken(`s${start + i}`),
          passwordHash: "unused",
          online: i % 2 === 0,
          createdAt: now,
        })),
      )
      .returning({ id: devices.id, code: devices.code });
    await db.insert(enterpriseDevices).values(
      rows.map((r) => ({
        enterpriseId: enterprise.id,
        deviceId: r.id,
        type: 1,
        name: r.code,
        createdAt: now,
      })),
    );
  }
  const login = await app.inject({
    method: "POST",
    url: "/api/user/login",
    payload: { loginName: "bench@example.com", loginPwd: "bench123" },
  });
  const token = login.json().hwdata.result.token as string;

  const call = async () => {
    const res = await app.inject({
      method: "POST",
      url: "/eapi/ent/c/manager/device/group/devicelist",
      headers: { cloudtoken: token },
      payload: { eid: enterprise.id, page: 1, pageSize: DEVICES, type: 1 },
    });
    const body = res.json();
    if (body.hwcode !== 0 || body.hwdata.list.length !== DEVICES) throw new Error("bad answer");
  };
  const plain = async () => {
    const result = await db.execute(sql`
      select d.id, d.code, d.model, d.check_type, d.cloud_service, d.online, d.version, d.ip,
        d.iccid, d.lat, d.lng, d.address, d.created_at, ed.name as held_name, ed.group_id,
        ed.maintenance_remark, g.name as group_name, cast(count(*) over () as int) as total
      from enterprise_devices ed
      join devices d on d.id = ed.device_id
      left join enterprise_groups g on g.id = ed.group_id
      where ed.enterprise_id = ${enterprise.id} and ed.type = 1
      order by ed.device_id desc limit ${DEVICES}`);
    const rows = (result as { rows?: unknown[] }).rows ?? (result as unknown as unknown[]);
    if (rows.length !== DEVICES) throw new Error("bad baseline");
  };

  const callMs = await timeRuns(RUNS, call);
  const sqlMs = await timeRuns(RUNS, plain);
  const median = { call: percentile(callMs, 50), sql: percentile(sqlMs, 50) };
  const p99 = { call: percentile(callMs, 99), sql: percentile(sqlMs, 99) };
  console.log(
    `devices: enterprise device list, ${DEVICES} devices, ${RUNS} runs, ${database.kind}`,
  );
  console.log(
    `  call (POST /eapi/ent/c/manager/device/group/devicelist): median ${fmt(median.call)}, p99 ${fmt(p99.call)}`,
  );
  console.log(
    `  baseline (the same query in plain SQL):                 median ${fmt(median.sql)}, p99 ${fmt(p99.sql)}`,
  );
  console.log(
    `  ratio call/baseline: median ${(median.call / median.sql).toFixed(2)}x, p99 ${(p99.call / p99.sql).toFixed(2)}x`,
  );
  await app.close();
  await database.close();
}
