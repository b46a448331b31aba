import type { AccountService } from "./modules/accounts/service.ts";

/** The demo accounts of the embedded set-up (printed at start; see README). */
export const DEMO_ACCOUNTS = {
  operator: { email: "operator@keyway.local", password: "operator123", name: "Operator" },
  user: { email: "demo@keyway.local", password: "demo1234", name: "Demo User" },
} as const;

/** Creates the demo operator and user when they do not exist yet. */
export async function seedDemo(accounts: AccountService): Promise<void> {
  for (const [role, account] of Object.entries(DEMO_ACCOUNTS)) {
    const ref = { channel: "email" as const, email: account.email };
    if (await accounts.findUser(ref)) continue;
    await accounts.createActivatedUser({
      account: ref,
      password: account.password,
      name: account.name,
      role: role === "operator" ? "operator" : "user",
    });
  }
}
