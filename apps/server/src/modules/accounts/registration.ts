import type { Lang, RegisterResult } from "@keyway/shared";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fail } from "../../http/envelope.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashPassword } from "../../infra/crypto.ts";
import type { VerificationService } from "../verification/service.ts";
import type { AccountRef } from "./accountRef.ts";
import type { RequestContext } from "./requestContext.ts";
import { type User, users } from "./schema.ts";

/** Sign-up: a registration waits for the code sent to its phone / e-mail, then is activated. */
export function createRegistration(deps: {
  db: Db;
  clock: Clock;
  verification: VerificationService;
  findUser: (ref: AccountRef, tx?: Db) => Promise<User | undefined>;
}) {
  const { db, clock, verification, findUser } = deps;

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
      await verification.send(input.account, "register", context, tx);
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
    await verification.check(account, "register", code, { consume: true });
    await db.update(users).set({ activatedAt: clock.now() }).where(eq(users.id, user.id));
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

  return { register, activate, createActivatedUser };
}
