import type { EnterpriseSummary, MemberKind } from "@keyway/shared";
import type { Enterprise } from "./schema.ts";

/** An enterprise as the lists show it, with the viewer's kinds and admin flag. */
export function summary(
  e: Enterprise,
  kinds: MemberKind[] = [],
  isAdmin = false,
): EnterpriseSummary {
  return {
    eid: e.id,
    name: e.name,
    enableProject: e.enableProject ? 1 : 0,
    platformName: e.platformName,
    applyLogoUrl: e.applyLogoUrl,
    kinds,
    isAdmin: isAdmin ? 1 : 0,
  };
}

/** A user's account as the admin centre shows it: the e-mail, else "+code phone". */
export function accountOf(u: { email: string | null; phone: string | null; countryCode: string }) {
  return u.email ?? (u.phone ? `+${u.countryCode} ${u.phone}` : "");
}
