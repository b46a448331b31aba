import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { createTestDatabase } from "../../db/testing.ts";
import { blackList } from "../access/schema.ts";
import { users } from "../accounts/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { enterpriseDevices, enterpriseMembers, enterprises } from "../enterprises/schema.ts";
import { createPermissions, type Permissions } from "./service.ts";

/**
 * The rule "who sees / receives / may act on a device" on a small world built in the tables:
 * - personal device P: `akey` (Akey), `bkey` (Bkey), `bound` (bound user, alarms off),
 *   `visitor` (a read-only visitor), `black` on its black list (no identity);
 * - enterprise E holds device ED as its own (type 1) and P as maintained (type 2):
 *   `member` (member kind), `maint` (maintenance kind), `admin` (member kind, admin);
 * - another tenant: enterprise E2 holds device OD, `rival` its admin and member.
 */

let database: Database;
let permissions: Permissions;
const people = [
  "akey",
  "bkey",
  "bound",
  "visitor",
  "black",
  "member",
  "maint",
  "admin",
  "rival",
] as const;
const ids = {} as Record<(typeof people)[number], number>;
let P: number;
let ED: number;
let OD: number;
/** Enterprise E. */
let eid: number;

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database;
  permissions = createPermissions({ db });
  const now = new Date("2026-11-21T08:00:00Z");
  for (const name of people) {
    const [u] = await db
      .insert(users)
      .values({ name, email: `${name}@example.com`, passwordHash: "x", activatedAt: now })
      .returning();
    ids[name] = u.id;
  }
  const device = async (code: string) => {
    const [d] = await db
      .insert(devices)
      .values({ code, secretHash: "x", passwordHash: "x", createdAt: now })
      .returning();
    return d.id;
  };
  [P, ED, OD] = [await device("P0001"), await device("ED0001"), await device("OD0001")];
  const link = (
    userId: number,
    role: "akey" | "bkey" | "user" | "visitor",
    extra: { canWrite?: boolean; receivesAlarms?: boolean } = {},
  ) => ({ deviceId: P, userId, role, name: `P of ${role}`, createdAt: now, ...extra });
  await db
    .insert(deviceLinks)
    .values([
      link(ids.akey, "akey"),
      link(ids.bkey, "bkey"),
      link(ids.bound, "user", { receivesAlarms: false }),
      link(ids.visitor, "visitor", { canWrite: false, receivesAlarms: false }),
    ]);
  await db.insert(blackList).values({ deviceId: P, userId: ids.black, createdAt: now });
  const [E] = await db.insert(enterprises).values({ name: "E", createdAt: now }).returning();
  const [E2] = await db.insert(enterprises).values({ name: "E2", createdAt: now }).returning();
  eid = E.id;
  const member = (
    enterpriseId: number,
    userId: number,
    kind: "member" | "maintenance",
    isAdmin = false,
  ) => ({ enterpriseId, userId, kind, isAdmin, createdAt: now }) as const;
  await db
    .insert(enterpriseMembers)
    .values([
      member(E.id, ids.member, "member"),
      member(E.id, ids.maint, "maintenance"),
      member(E.id, ids.admin, "member", true),
      member(E2.id, ids.rival, "member", true),
    ]);
  const held = (enterpriseId: number, deviceId: number, type: 1 | 2, name: string) => ({
    enterpriseId,
    deviceId,
    type,
    name,
    createdAt: now,
  });
  await db
    .insert(enterpriseDevices)
    .values([
      held(E.id, ED, 1, "E's own"),
      held(E.id, P, 2, "E maintains"),
      held(E2.id, OD, 1, "E2's own"),
    ]);
});
afterAll(async () => {
  await database?.close();
});

const sorted = (s: Set<number>) => [...s].sort((a, b) => a - b);

describe("who sees a device", () => {
  it("every personal identity sees it, the black-listed do not", async () => {
    for (const who of ["akey", "bkey", "bound", "visitor"] as const)
      expect(sorted(await permissions.allowed(ids[who], [P, ED, OD], "see"))).toContain(P);
    expect(sorted(await permissions.allowed(ids.black, [P, ED, OD], "see"))).toEqual([]);
  });

  it("an enterprise list shows to its kind of member, both lists to an admin", async () => {
    expect(sorted(await permissions.allowed(ids.member, [P, ED, OD], "see"))).toEqual([ED]);
    expect(sorted(await permissions.allowed(ids.maint, [P, ED, OD], "see"))).toEqual([P]);
    expect(sorted(await permissions.allowed(ids.admin, [P, ED, OD], "see"))).toEqual([P, ED]);
  });

  it("another tenant sees only its own devices, and is refused the others", async () => {
    expect(sorted(await permissions.allowed(ids.rival, [P, ED, OD], "see"))).toEqual([OD]);
    await expect(permissions.require(ids.rival, [OD, ED], "see")).rejects.toMatchObject({
      key: "DEVICE_NO_PERMISSION",
    });
    await expect(permissions.require(ids.rival, OD, "see")).resolves.toBeUndefined();
  });

  it("the personal scope lists the user's devices with their identity and write level", async () => {
    const scope = permissions.personalScope(ids.visitor);
    const rows = await database.db.select().from(scope);
    expect(rows).toEqual([
      { deviceId: P, name: "P of visitor", role: "visitor", canWrite: false, maintained: false },
    ]);
  });

  it("an enterprise scope holds the lists asked for, maintained ones marked", async () => {
    const { db } = database;
    const both = await db.select().from(permissions.enterpriseScope(eid, [1, 2]));
    expect(both.map((r) => [r.deviceId, r.maintained]).sort()).toEqual(
      [
        [P, true],
        [ED, false],
      ].sort(),
    );
    const own = await db.select().from(permissions.enterpriseScope(eid, [1]));
    expect(own.map((r) => r.deviceId)).toEqual([ED]);
  });
});

describe("who may act on a device", () => {
  it("a hostile visitor may neither approve, own nor confirm all alarms", async () => {
    for (const act of ["approve", "own", "confirmAlarms"] as const) {
      expect(await permissions.allowed(ids.visitor, [P], act)).toEqual(new Set());
      await expect(permissions.require(ids.visitor, P, act)).rejects.toMatchObject({
        key: "DEVICE_NO_PERMISSION",
      });
    }
  });

  it("the Akey and Bkeys approve; only the Akey owns", async () => {
    expect(await permissions.allowed(ids.akey, [P], "approve")).toEqual(new Set([P]));
    expect(await permissions.allowed(ids.bkey, [P], "approve")).toEqual(new Set([P]));
    expect(await permissions.allowed(ids.bound, [P], "approve")).toEqual(new Set());
    expect(await permissions.allowed(ids.akey, [P], "own")).toEqual(new Set([P]));
    await expect(
      permissions.require(ids.bkey, P, "own", "AKEY_UNCHANGEABLE"),
    ).rejects.toMatchObject({ key: "AKEY_UNCHANGEABLE" });
  });

  it("confirm-all: the Akey, or a maintenance member of the maintaining enterprise", async () => {
    expect(await permissions.allowed(ids.akey, [P, ED], "confirmAlarms")).toEqual(new Set([P]));
    expect(await permissions.allowed(ids.maint, [P, ED], "confirmAlarms")).toEqual(new Set([P]));
    // An admin of the member kind sees the maintained device but may not confirm all.
    expect(await permissions.allowed(ids.admin, [P, ED], "confirmAlarms")).toEqual(new Set());
    expect(await permissions.allowed(ids.rival, [P, ED, OD], "confirmAlarms")).toEqual(new Set());
  });

  it("enterprise roles say how a list reaches a device, for that tenant only", async () => {
    expect(await permissions.enterpriseRoles(ids.maint, [P, ED])).toEqual(
      new Map([[P, "maintainer"]]),
    );
    expect(await permissions.enterpriseRoles(ids.admin, [P, ED])).toEqual(
      new Map([
        [P, "maintainer"],
        [ED, "enterprise"],
      ]),
    );
    expect(await permissions.enterpriseRoles(ids.rival, [P, ED])).toEqual(new Map());
  });

  it("the black list holds only who was put on it", async () => {
    expect(await permissions.blacklisted(ids.black, [P, ED])).toEqual(new Set([P]));
    expect(await permissions.blacklisted(ids.visitor, [P, ED])).toEqual(new Set());
    // One device at a time, as a visit's rights check asks (a prepared statement).
    expect(await permissions.blacklisted(ids.black, [P])).toEqual(new Set([P]));
    expect(await permissions.blacklisted(ids.black, [ED])).toEqual(new Set());
    expect(await permissions.blacklisted(ids.visitor, [P])).toEqual(new Set());
  });
});

describe("who receives a device's alarms", () => {
  it("personal members with alarms on and the enterprise members who see it", async () => {
    const all = await permissions.recipients([P, ED, OD]);
    const p = all.get(P);
    expect(p?.personal.map((r) => r.userId)).toEqual([ids.akey, ids.bkey]);
    expect(p?.enterprise.map((r) => r.userId).sort()).toEqual([ids.maint, ids.admin].sort());
    expect(p?.holders).toEqual([{ eid, name: "E maintains" }]);
    expect(
      all
        .get(ED)
        ?.enterprise.map((r) => r.userId)
        .sort(),
    ).toEqual([ids.member, ids.admin].sort());
    // Another tenant's device reaches only that tenant.
    expect(all.get(OD)?.enterprise.map((r) => r.userId)).toEqual([ids.rival]);
  });

  it("the audience names the device as each user knows it, personal name first", async () => {
    const audience = await permissions.audience([P]);
    expect(audience.get(P)).toEqual(
      new Map([
        [ids.maint, "E maintains"],
        [ids.admin, "E maintains"],
        [ids.akey, "P of akey"],
        [ids.bkey, "P of bkey"],
      ]),
    );
    expect(await permissions.audience([])).toEqual(new Map());
  });
});
