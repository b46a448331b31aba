import { createAlarmConfirmation } from "./alarmConfirmation.ts";
import { createAuditViews } from "./audit.ts";
import { createAuthority } from "./authority.ts";
import { createLists } from "./lists.ts";
import { type AccessDeps, createLookups } from "./lookups.ts";
import { createMembership } from "./membership.ts";
import { createRequests } from "./requests.ts";
import { createRights } from "./rights.ts";
import { createTransfer } from "./transfer.ts";

export { nextStateOnAgree } from "./audit.ts";
export type { AccessDeps, Actor } from "./lookups.ts";

export type AccessService = ReturnType<typeof createAccessService>;

/**
 * The permission workflow of a device (docs/architecture/permissions.md): visit and bind
 * requests and their audit (`requests`, `audit`), the authority lists (`authority`,
 * `lists`), the connect check every remote access goes through (`rights`), transfer and
 * alarm confirm-all. Who may act on a device is the permissions module's rule.
 */
export function createAccessService(deps: AccessDeps) {
  const ctx = { ...deps, ...createLookups(deps) };
  const views = createAuditViews(ctx);
  const membership = createMembership(ctx);
  const requests = createRequests(ctx, views, membership);
  const authority = createAuthority(ctx, views, membership);
  const lists = createLists(ctx);
  return {
    ...requests,
    describe: views.describe,
    auditProcess: views.auditProcess,
    ...createRights(ctx),
    ...authority,
    validVisits: lists.validVisits,
    whiteList: lists.whiteList,
    blackList: lists.blackListOf,
    clearVisitTime: lists.clearVisitTime,
    setVisitTime: lists.setVisitTime,
    ...createTransfer(ctx),
    ...createAlarmConfirmation(ctx),
  };
}
