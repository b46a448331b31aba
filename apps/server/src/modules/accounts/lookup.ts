import { type FriendEntry, maskPhone, type UserInfo } from "@keyway/shared";
import { and, asc, countDistinct, eq, inArray, ne, or } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../http/envelope.ts";
import { deviceLinks } from "../devices/schema.ts";
import { type AccountRef, maskEmail } from "./accountRef.ts";
import { type User, users } from "./schema.ts";

export type AccountLookup = ReturnType<typeof createAccountLookup>;

/** Account lookup: a user by phone / e-mail or id, as the caller sees itself or its friends. */
export function createAccountLookup(deps: { db: Db }) {
  const { db } = deps;

  const whereAccount = (ref: AccountRef) =>
    ref.channel === "email"
      ? eq(users.email, ref.email)
      : and(eq(users.countryCode, ref.countryCode), eq(users.phone, ref.phone));

  async function findUser(ref: AccountRef, tx: Db = db): Promise<User | undefined> {
    const [user] = await tx.select().from(users).where(whereAccount(ref)).limit(1);
    return user;
  }

  async function requireUser(userId: number): Promise<User> {
    const [user] = await db.select().from(users).where(eq(users.id, userId)).limit(1);
    if (!user) throw new AppError("TOKEN_INVALID", null, 401);
    return user;
  }

  async function userInfo(userId: number): Promise<UserInfo> {
    return toUserInfo(await requireUser(userId));
  }

  async function emailInUse(email: string): Promise<boolean> {
    const user = await findUser({ channel: "email", email: email.toLowerCase() });
    return Boolean(user?.activatedAt);
  }

  /**
   * People the caller shares devices with: everyone on the devices the caller is Akey or Bkey
   * of, and the Akey / Bkeys of the devices the caller is on. Two ordinary users of one
   * device do not see each other.
   */
  async function friends(userId: number, page: number, pageSize: number) {
    const mine = alias(deviceLinks, "mine");
    const theirs = alias(deviceLinks, "theirs");
    const managers = ["akey", "bkey"] as const;
    const shared = and(
      eq(mine.userId, userId),
      ne(theirs.userId, userId),
      or(inArray(mine.role, [...managers]), inArray(theirs.role, [...managers])),
    );
    const [rows, [{ total }]] = await Promise.all([
      db
        .select({
          id: users.id,
          name: users.name,
          phone: users.phone,
          email: users.email,
          devices: countDistinct(theirs.deviceId),
        })
        .from(theirs)
        .innerJoin(mine, eq(mine.deviceId, theirs.deviceId))
        .innerJoin(users, eq(users.id, theirs.userId))
        .where(shared)
        .groupBy(users.id)
        .orderBy(asc(users.name), asc(users.id))
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      db
        .select({ total: countDistinct(theirs.userId) })
        .from(theirs)
        .innerJoin(mine, eq(mine.deviceId, theirs.deviceId))
        .where(shared),
    ]);
    const list: FriendEntry[] = rows.map((r) => ({
      userid: r.id,
      name: r.name,
      account: r.email ? maskEmail(r.email) : r.phone ? maskPhone(r.phone) : "",
      devices: r.devices,
    }));
    return { list, total };
  }

  return { findUser, requireUser, userInfo, emailInUse, friends };
}

function toUserInfo(user: User): UserInfo {
  return {
    id: user.id,
    account: user.email ?? (user.phone ? `+${user.countryCode} ${user.phone}` : ""),
    name: user.name,
    phone: user.phone,
    email: user.email,
    countryCode: user.countryCode,
    language: user.language,
    hideMap: user.hideMap ? 1 : 0,
    phone_state: user.phone ? 1 : 0,
    email_state: user.email ? 1 : 0,
    role: user.role,
    enableProject: user.enableProject ? 1 : 0,
  };
}
