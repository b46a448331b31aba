import type { Db } from "../../db/client.ts";
import type { Events } from "../../events.ts";
import type { Clock } from "../../infra/clock.ts";
import type { VerificationService } from "../verification/service.ts";
import { createAccountCodes } from "./codes.ts";
import { createLoginGuard } from "./loginGuard.ts";
import { createAccountLookup } from "./lookup.ts";
import { createPasswordReset } from "./passwordReset.ts";
import { createProfile } from "./profile.ts";
import { createRegistration } from "./registration.ts";
import { createSessions, tellEndedTo } from "./sessions.ts";

// What other modules name of accounts: how a user names an account, and ended sessions.
export { type AccountRef, accountRef, parseAccountString } from "./accountRef.ts";
export type { TerminalsEnded } from "./sessions.ts";

export type AccountService = ReturnType<typeof createAccountService>;

/**
 * Accounts: one service over its jobs — sign-up and codes (registration.ts, codes.ts), login,
 * sessions and terminals (sessions.ts), the caller's profile (profile.ts), forgot password
 * (passwordReset.ts) and account lookup (lookup.ts).
 */
export function createAccountService(deps: {
  db: Db;
  clock: Clock;
  verification: VerificationService;
  /** See createSessions: a challenge instead of a session when two-factor login is on. */
  secondFactor?: Parameters<typeof createSessions>[0]["secondFactor"];
  /** "terminals.ended" is published when sessions end because of something done elsewhere. */
  events?: Pick<Events, "publish">;
}) {
  const { db, clock, verification } = deps;
  const guard = createLoginGuard({ db, clock });
  const tellEnded = tellEndedTo((ended) => deps.events?.publish("terminals.ended", ended));
  const lookup = createAccountLookup({ db });
  const { findUser } = lookup;
  return {
    ...createRegistration({ db, clock, verification, findUser }),
    ...createAccountCodes({ verification, findUser }),
    ...createSessions({
      db,
      clock,
      guard,
      tellEnded,
      findUser,
      secondFactor: deps.secondFactor,
    }),
    ...createPasswordReset({ db, verification, guard, tellEnded, findUser }),
    ...createProfile({ db, verification, tellEnded, lookup }),
    ...lookup,
  };
}
