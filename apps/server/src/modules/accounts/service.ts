import { LOGOUT_REASON, type LogoutReason } from "@keyway/protocol";
import {
  type Brand,
  type CodePurpose,
  type ConfirmAccountResult,
  type FriendEntry,
  type Lang,
  maskPhone,
  normalizePhone,
  type RegisterResult,
  SESSION_TOKEN_HOURS,
  type TerminalEntry,
  TOKEN_COOKIE_DAYS,
  type UserInfo,
} from "@keyway/shared";
import { and, asc, count, countDistinct, desc, eq, gt, inArray, lte, ne, or } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client.ts";
import { AppError, fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashPassword, hashToken, newToken, verifyPassword } from "../../infra/crypto.ts";
import { deviceLinks } from "../devices/schema.ts";
import type { CodeTarget, VerificationService } from "../verification/service.ts";
import { createLoginGuard } from "./loginGuard.ts";
import { terminals, type User, users } from "./schema.ts";

/** An account as the user names it: a phone (with its country code) or an e-mail. */
export type AccountRef =
  | { channel: "sms"; countryCode: string; phone: string }
  | { channel: "email"; email: string };

export interface RequestContext {
  lang: Lang;
  brand: Brand;
  ip: string;
}

export interface TerminalInfo {
  uuid?: string;
  type?: string;
  name?: string;
  os?: string;
}

/** Phone/e-mail fields of a payload → an account reference (formats already validated). */
export function accountRef(input: {
  phone?: string;
  countryCode?: string;
  email?: string;
}): AccountRef {
  if (input.email) return { channel: "email", email: input.email.trim().toLowerCase() };
  const countryCode = input.countryCode ?? "86";
  const phone = normalizePhone(input.phone ?? "", countryCode);
  if (phone === null) throw AppError.invalid("phone", "v.phone");
  return { channel: "sms", countryCode, phone };
}

/** SPEC §5: an account string containing "@" is an e-mail, otherwise a phone. */
export function parseAccountString(value: string, countryCode?: string): AccountRef {
  const trimmed = value.trim();
  if (trimmed.includes("@") && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed)) {
    throw AppError.invalid("email", "v.email");
  }
  return trimmed.includes("@")
    ? accountRef({ email: trimmed })
    : accountRef({ phone: trimmed, countryCode });
}

const asTarget = (ref: AccountRef): CodeTarget => ref;

export type AccountService = ReturnType<typeof createAccountService>;

/** Sessions of a user that ended because of something done elsewhere. */
export interface TerminalsEnded {
  userId: number;
  terminalIds: number[];
  reason: LogoutReason;
  /** A login elsewhere: where it came from, and its kind of terminal (that of the ended ones). */
  loginIp: string;
  terminalType: string;
}

export function createAccountService(deps: {
  db: Db;
  clock: Clock;
  verification: VerificationService;
  /**
   * Two-factor login (twoFactor.ts): after a right password, a challenge instead of a
   * session when the user has it on (null: go on).
   */
  secondFactor?: (
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
  ) => Promise<{ challenge: string; expiredTime: string } | null>;
  /** Terminals whose session ended because of something done elsewhere (push a logout). */
  onTerminalsEnded?: (ended: TerminalsEnded) => void;
}) {
  const { db, clock, verification } = deps;
  const guard = createLoginGuard({ db, clock });
  const ended = (
    userId: number,
    rows: { id: number }[],
    reason: LogoutReason,
    login?: { ip: string; terminalType: string },
  ) => {
    if (rows.length)
      deps.onTerminalsEnded?.({
        userId,
        terminalIds: rows.map((r) => r.id),
        reason,
        loginIp: login?.ip ?? "",
        terminalType: login?.terminalType ?? "",
      });
  };

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

  async function register(
    input: {
      account: AccountRef;
      password: string;
      name: string;
      oemId?: string;
      hideMap?: boolean;
      language: Lang;
    },
    context: RequestContext,
  ): Promise<RegisterResult> {
    const passwordHash = await hashPassword(input.password);
    await db.transaction(async (tx) => {
      const existing = await findUser(input.account, tx);
      if (existing?.activatedAt) throw fail("ACCOUNT_EXISTS");
      const fields = {
        name: input.name,
        passwordHash,
        oemId: input.oemId ?? context.brand.id,
        hideMap: input.hideMap ?? false,
        language: input.language,
      };
      if (existing) {
        // Never activated: whoever proves the phone/e-mail now takes the registration.
        await tx.update(users).set(fields).where(eq(users.id, existing.id));
      } else {
        await tx.insert(users).values({
          ...fields,
          ...(input.account.channel === "email"
            ? { email: input.account.email }
            : { phone: input.account.phone, countryCode: input.account.countryCode }),
        });
      }
      await verification.send(asTarget(input.account), "register", context, tx);
    });
    return {
      account: input.account.channel === "email" ? input.account.email : input.account.phone,
      channel: input.account.channel,
    };
  }

  async function activate(account: AccountRef, code: string): Promise<void> {
    const user = await findUser(account);
    if (!user) throw fail("ACCOUNT_NOT_FOUND", 0);
    if (user.activatedAt) return;
    await verification.check(asTarget(account), "register", code, { consume: true });
    await db.update(users).set({ activatedAt: clock.now() }).where(eq(users.id, user.id));
  }

  async function login(
    input: { account: AccountRef; password: string; keepLogin: boolean; terminal: TerminalInfo },
    context: RequestContext,
  ) {
    const user = await findUser(input.account);
    if (!user) throw fail("ACCOUNT_NOT_FOUND");
    await guard.admit(user, context.ip);
    if (!(await verifyPassword(user.passwordHash, input.password))) {
      const locked = await guard.wrongPassword(user.id, context.ip);
      throw fail(locked ? "ACCOUNT_LOCKED" : "PASSWORD_ERROR");
    }
    if (!user.activatedAt) throw fail("ACCOUNT_NOT_ACTIVATED");
    await guard.rightPassword(user.id, context.ip);
    const challenge = await deps.secondFactor?.(user, input);
    if (challenge) throw fail("TWO_FACTOR_REQUIRED", challenge);
    return openSession(user, input, context);
  }

  /**
   * A new session for a user already proven (password, password + second factor, or a QR
   * confirmed on a logged-in phone): one token per terminal, one live session per kind of
   * terminal (`keepTerminalId` is spared: the phone that confirmed a QR login stays).
   */
  async function openSession(
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
    context: RequestContext,
    options: { keepTerminalId?: number } = {},
  ) {
    const now = clock.now();
    const token = newToken();
    const lifetimeMs = input.keepLogin
      ? TOKEN_COOKIE_DAYS * 24 * 3600_000
      : SESSION_TOKEN_HOURS * 3600_000;
    const expiresAt = new Date(now.getTime() + lifetimeMs);
    const uuid = input.terminal.uuid || `anon-${hashToken(token).slice(0, 16)}`;
    const type = input.terminal.type || "web";
    const replaced = await db.transaction(async (tx) => {
      await guard.loggedIn(user.id, context.ip, tx);
      // One token per terminal: logging in again from the same terminal replaces it;
      // expired terminals of this user are pruned on the way.
      await tx
        .delete(terminals)
        .where(
          and(
            eq(terminals.userId, user.id),
            or(eq(terminals.uuid, uuid), lte(terminals.expiresAt, now)),
          ),
        );
      // One live session per kind of terminal (web, phone app, TV): a login elsewhere ends
      // the other one, which is told over the push channel (SPEC §4).
      const others = await tx
        .delete(terminals)
        .where(
          and(
            eq(terminals.userId, user.id),
            eq(terminals.type, type),
            ne(terminals.uuid, uuid),
            options.keepTerminalId === undefined
              ? undefined
              : ne(terminals.id, options.keepTerminalId),
          ),
        )
        .returning({ id: terminals.id });
      await tx.insert(terminals).values({
        userId: user.id,
        tokenHash: hashToken(token),
        uuid,
        type,
        name: input.terminal.name || "Unknown terminal",
        os: input.terminal.os ?? "",
        ip: context.ip,
        loginTime: now,
        expiresAt,
      });
      return others;
    });
    ended(user.id, replaced, LOGOUT_REASON.loginElsewhere, { ip: context.ip, terminalType: type });
    return {
      result: {
        token,
        userid: user.id,
        phone: user.phone,
        email: user.email,
        name: user.name,
        expiredTime: expiresAt.toISOString(),
      },
    };
  }

  /** The caller behind a token, if the token is known and not expired. */
  async function authenticate(token: string) {
    const [row] = await db
      .select({ terminalId: terminals.id, userId: users.id, role: users.role })
      .from(terminals)
      .innerJoin(users, eq(users.id, terminals.userId))
      .where(and(eq(terminals.tokenHash, hashToken(token)), gt(terminals.expiresAt, clock.now())))
      .limit(1);
    return row ?? null;
  }

  /**
   * Ends the caller's session, or with `token` the session of that token — only one of the
   * caller's own; anybody else's (or an unknown one) is "terminal not found" alike.
   */
  async function logout(caller: { userId: number; terminalId: number }, token?: string) {
    if (!token) {
      await db.delete(terminals).where(eq(terminals.id, caller.terminalId));
      return;
    }
    const owner = await authenticate(token);
    if (owner?.userId !== caller.userId) throw fail("TERMINAL_NOT_FOUND");
    await db.delete(terminals).where(eq(terminals.id, owner.terminalId));
    if (owner.terminalId !== caller.terminalId)
      ended(caller.userId, [{ id: owner.terminalId }], LOGOUT_REASON.terminalRemoved);
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

  async function userInfo(userId: number): Promise<UserInfo> {
    return toUserInfo(await requireUser(userId));
  }

  async function confirmAccount(account: AccountRef): Promise<ConfirmAccountResult> {
    const user = await findUser(account);
    if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    return {
      account: account.channel === "email" ? maskEmail(account.email) : maskPhone(account.phone),
      channel: account.channel,
    };
  }

  /** Sends a code for `purpose`, checking first that the purpose makes sense for the account. */
  async function sendCode(
    account: AccountRef,
    purpose: CodePurpose,
    context: RequestContext,
    callerId?: number,
  ): Promise<void> {
    const user = await findUser(account);
    if (purpose === "register") {
      if (!user) throw fail("ACCOUNT_NOT_FOUND");
      if (user.activatedAt) throw fail("ACCOUNT_EXISTS");
    } else if (purpose === "reset") {
      if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    } else {
      if (callerId === undefined) throw new AppError("TOKEN_INVALID", null, 401);
      if (user?.id === callerId) throw fail("SAME_AS_CURRENT");
      if (user?.activatedAt) throw fail("ACCOUNT_EXISTS");
    }
    await verification.send(asTarget(account), purpose, context);
  }

  async function checkCode(account: AccountRef, purpose: CodePurpose, code: string) {
    await verification.check(asTarget(account), purpose, code, { consume: false });
  }

  async function resetPassword(account: AccountRef, password: string, code: string) {
    const user = await findUser(account);
    if (!user?.activatedAt) throw fail("ACCOUNT_NOT_FOUND");
    const passwordHash = await hashPassword(password);
    await verification.check(asTarget(account), "reset", code, { consume: true });
    const removed = await db.transaction(async (tx) => {
      await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
      await guard.release(user.id, tx);
      return tx
        .delete(terminals)
        .where(eq(terminals.userId, user.id))
        .returning({ id: terminals.id });
    });
    ended(user.id, removed, LOGOUT_REASON.passwordChanged);
  }

  async function changeName(userId: number, name: string) {
    await db.update(users).set({ name }).where(eq(users.id, userId));
  }

  async function changeAccount(userId: number, account: AccountRef, code: string) {
    const user = await requireUser(userId);
    const current =
      account.channel === "email"
        ? user.email === account.email
        : user.phone === account.phone && user.countryCode === account.countryCode;
    if (current) throw fail("SAME_AS_CURRENT");
    const owner = await findUser(account);
    if (owner?.activatedAt) throw fail("ACCOUNT_EXISTS");
    await verification.check(asTarget(account), "change", code, { consume: true });
    await db.transaction(async (tx) => {
      // A never-activated registration holding this address gives way to the verified owner.
      if (owner) await tx.delete(users).where(eq(users.id, owner.id));
      await tx
        .update(users)
        .set(
          account.channel === "email"
            ? { email: account.email }
            : { phone: account.phone, countryCode: account.countryCode },
        )
        .where(eq(users.id, userId));
    });
  }

  async function changePassword(
    caller: { userId: number; terminalId: number },
    oldPassword: string,
    newPassword: string,
  ) {
    const user = await requireUser(caller.userId);
    if (!(await verifyPassword(user.passwordHash, oldPassword))) throw fail("PASSWORD_ERROR");
    const passwordHash = await hashPassword(newPassword);
    const removed = await db.transaction(async (tx) => {
      await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
      // Other terminals must log in again with the new password.
      return tx
        .delete(terminals)
        .where(and(eq(terminals.userId, user.id), ne(terminals.id, caller.terminalId)))
        .returning({ id: terminals.id });
    });
    ended(user.id, removed, LOGOUT_REASON.passwordChanged);
  }

  /** Ends every session of the user but the caller's, each told why over the push channel. */
  async function endOtherSessions(
    caller: { userId: number; terminalId: number },
    reason: LogoutReason,
  ) {
    const removed = await db
      .delete(terminals)
      .where(and(eq(terminals.userId, caller.userId), ne(terminals.id, caller.terminalId)))
      .returning({ id: terminals.id });
    ended(caller.userId, removed, reason);
  }

  async function setHideMap(userId: number, hideMap: boolean) {
    await db.update(users).set({ hideMap }).where(eq(users.id, userId));
  }

  async function listTerminals(
    caller: { userId: number; terminalId: number },
    page: number,
    pageSize: number,
  ) {
    const live = and(eq(terminals.userId, caller.userId), gt(terminals.expiresAt, clock.now()));
    const [rows, [{ total }]] = await Promise.all([
      db
        .select()
        .from(terminals)
        .where(live)
        .orderBy(desc(terminals.loginTime), desc(terminals.id))
        .limit(pageSize)
        .offset((page - 1) * pageSize),
      db.select({ total: count() }).from(terminals).where(live),
    ]);
    const list: TerminalEntry[] = rows.map((t) => ({
      id: t.id,
      type: t.type,
      name: t.os ? `${t.name} (${t.os})` : t.name,
      loginTime: t.loginTime.toISOString(),
      expiredTime: t.expiresAt.toISOString(),
      current: t.id === caller.terminalId,
    }));
    return { list, total };
  }

  async function deleteTerminal(userId: number, terminalId: number) {
    const deleted = await db
      .delete(terminals)
      .where(and(eq(terminals.id, terminalId), eq(terminals.userId, userId)))
      .returning({ id: terminals.id });
    if (deleted.length === 0) throw fail("TERMINAL_NOT_FOUND");
    ended(userId, deleted, LOGOUT_REASON.terminalRemoved);
  }

  async function verifyCurrentPassword(userId: number, password: string) {
    const user = await requireUser(userId);
    if (!(await verifyPassword(user.passwordHash, password))) throw fail("PASSWORD_ERROR");
  }

  async function deleteAccount(userId: number, password: string) {
    await verifyCurrentPassword(userId, password);
    const sessions = await db
      .select({ id: terminals.id })
      .from(terminals)
      .where(eq(terminals.userId, userId));
    await db.delete(users).where(eq(users.id, userId));
    ended(userId, sessions, LOGOUT_REASON.accountDeleted);
  }

  async function emailInUse(email: string): Promise<boolean> {
    const user = await findUser({ channel: "email", email: email.toLowerCase() });
    return Boolean(user?.activatedAt);
  }

  /** Creates an activated account directly (demo seed, tests of later modules). */
  async function createActivatedUser(input: {
    account: AccountRef;
    password: string;
    name: string;
    role?: "user" | "operator";
  }): Promise<User> {
    const [user] = await db
      .insert(users)
      .values({
        name: input.name,
        passwordHash: await hashPassword(input.password),
        role: input.role ?? "user",
        activatedAt: clock.now(),
        ...(input.account.channel === "email"
          ? { email: input.account.email }
          : { phone: input.account.phone, countryCode: input.account.countryCode }),
      })
      .returning();
    return user;
  }

  return {
    register,
    activate,
    login,
    openSession,
    authenticate,
    logout,
    friends,
    userInfo,
    confirmAccount,
    sendCode,
    checkCode,
    resetPassword,
    changeName,
    changeAccount,
    changePassword,
    endOtherSessions,
    setHideMap,
    listTerminals,
    deleteTerminal,
    verifyCurrentPassword,
    deleteAccount,
    emailInUse,
    createActivatedUser,
    findUser,
    requireUser,
  };
}

function maskEmail(email: string): string {
  const [local, domain] = email.split("@");
  return `${local.slice(0, 2)}***@${domain}`;
}
