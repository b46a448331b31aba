import { LOGOUT_REASON, type LogoutReason } from "@keyway/protocol";
import { SESSION_TOKEN_HOURS, type TerminalEntry, TOKEN_COOKIE_DAYS } from "@keyway/shared";
import { and, count, desc, eq, gt, lte, ne, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import { createBatcher } from "../../infra/batcher.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashToken, newToken, verifyPassword } from "../../infra/crypto.ts";
import type { AccountRef } from "./accountRef.ts";
import type { LoginGuard } from "./loginGuard.ts";
import type { RequestContext, TerminalInfo } from "./requestContext.ts";
import { terminals, type User, users } from "./schema.ts";

/** Sessions of a user that ended because of something done elsewhere. */
export interface TerminalsEnded {
  userId: number;
  terminalIds: number[];
  reason: LogoutReason;
  /** A login elsewhere: where it came from, and its kind of terminal (that of the ended ones). */
  loginIp: string;
  terminalType: string;
}

export type TellEnded = ReturnType<typeof tellEndedTo>;

/** Tells `listener` of the ended sessions (`rows`, none: nothing to tell). */
export function tellEndedTo(listener: ((ended: TerminalsEnded) => void) | undefined) {
  return (
    userId: number,
    rows: { id: number }[],
    reason: LogoutReason,
    login?: { ip: string; terminalType: string },
  ) => {
    if (rows.length)
      listener?.({
        userId,
        terminalIds: rows.map((r) => r.id),
        reason,
        loginIp: login?.ip ?? "",
        terminalType: login?.terminalType ?? "",
      });
  };
}

/** Login, the sessions it opens (one per terminal) and the terminals a user lists and ends. */
export function createSessions(deps: {
  db: Db;
  clock: Clock;
  guard: LoginGuard;
  tellEnded: TellEnded;
  findUser: (ref: AccountRef) => Promise<User | undefined>;
  /**
   * Two-factor login (twoFactor.ts): after a right password, a challenge instead of a
   * session when the user has it on (null: go on).
   */
  secondFactor?: (
    user: User,
    input: { keepLogin: boolean; terminal: TerminalInfo },
  ) => Promise<{ challenge: string; expiredTime: string } | null>;
}) {
  const { db, clock, guard, tellEnded } = deps;

  async function login(
    input: { account: AccountRef; password: string; keepLogin: boolean; terminal: TerminalInfo },
    context: RequestContext,
  ) {
    const user = await deps.findUser(input.account);
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
    tellEnded(user.id, replaced, LOGOUT_REASON.loginElsewhere, {
      ip: context.ip,
      terminalType: type,
    });
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

  // Every request's token check, and every push connect's, goes through one batcher: on a busy
  // node the checks waiting behind a running query share the next one. A check never joins a
  // query already running, so a token revoked before it arrived is refused as without batching.
  const tokenChecks = createBatcher(async (tokens: string[]) => {
    const found = await authenticateMany(tokens);
    return tokens.map((token) => found.get(token) ?? null);
  }, 500);

  /** The caller behind a token, if the token is known and not expired. */
  function authenticate(token: string) {
    return tokenChecks.submit(token);
  }

  // Built once: on PGlite, building the statement cost as much as running it (decision 205).
  const callersByHash = db
    .select({
      tokenHash: terminals.tokenHash,
      terminalId: terminals.id,
      userId: users.id,
      role: users.role,
    })
    .from(terminals)
    .innerJoin(users, eq(users.id, terminals.userId))
    .where(
      and(
        sql`${terminals.tokenHash} = any(${sql.placeholder("hashes")}::text[])`,
        gt(terminals.expiresAt, sql.placeholder("now")),
      ),
    )
    .prepare("accounts_callers_by_token_hash");

  /** The callers behind several tokens in one query, by token; unknown and expired are absent. */
  async function authenticateMany(tokens: readonly string[]) {
    const tokenOf = new Map(tokens.map((token) => [hashToken(token), token]));
    const rows = await callersByHash.execute({ hashes: [...tokenOf.keys()], now: clock.now() });
    const callers = new Map<string, Omit<(typeof rows)[number], "tokenHash">>();
    for (const { tokenHash, ...caller } of rows) callers.set(tokenOf.get(tokenHash) ?? "", caller);
    return callers;
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
      tellEnded(caller.userId, [{ id: owner.terminalId }], LOGOUT_REASON.terminalRemoved);
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
    tellEnded(caller.userId, removed, reason);
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
    tellEnded(userId, deleted, LOGOUT_REASON.terminalRemoved);
  }

  return {
    login,
    openSession,
    authenticate,
    logout,
    endOtherSessions,
    listTerminals,
    deleteTerminal,
  };
}
