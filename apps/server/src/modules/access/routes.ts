import { type AccessKind, API, INFO_TYPE, PAGE_SIZE, type replyBody } from "@keyway/shared";
import type { z } from "zod";
import type { Caller } from "../../http/auth.ts";
import { fail } from "../../http/envelope.ts";
import type { Serve } from "../../http/routes.ts";
import { parseAccountString } from "../accounts/service.ts";
import type { MessageService } from "../messages/service.ts";
import type { AccessService } from "./service.ts";

/** Requests and password checks guess at something: limit them per address. */
const GUESS_LIMIT = { config: { rateLimit: { max: 20, timeWindow: "1 minute" } } };
/**
 * A machine code looked up says whether the device exists, has an owner and which audit mode
 * it uses: the web app asks as a code is typed (debounced, whole codes only), a person a few
 * times a minute; a script walking codes is held per address.
 */
const LOOKUP_LIMIT = { config: { rateLimit: { max: 60, timeWindow: "1 minute" } } };

const listOf = <T>(list: T[]) => ({ list, total: list.length });

/** SPEC §7 "Audit and authority" (packages/shared/src/contract/access.ts). */
export function accessRoutes(
  serve: Serve,
  { access, messages }: { access: AccessService; messages: MessageService },
) {
  const a = API.access;

  serve(
    a.scanCode,
    ({ caller, input }) => access.scanCode(caller.userId, input.machineCode),
    LOOKUP_LIMIT,
  );
  serve(
    a.requestVisit,
    ({ caller, input }) =>
      access.request("visit", caller, {
        deviceId: input.machineID,
        message: input.message,
        terminalName: input.terminalName,
        password: input.password,
      }),
    GUESS_LIMIT,
  );
  serve(
    a.requestBind,
    ({ caller, input }) =>
      access.request("bind", caller, {
        deviceId: input.machineID,
        message: input.message,
        remarks: input.remarks,
        password: input.password,
      }),
    GUESS_LIMIT,
  );
  serve(
    a.checkPassword,
    ({ input }) => access.checkPassword(input.machineID, input.machinePwd),
    GUESS_LIMIT,
  );

  /** A reply names its request, or (from the message centre) the message that carried it. */
  async function answer(caller: Caller, kind: AccessKind, b: z.output<typeof replyBody>) {
    const requestId = b.requestId ?? (await messages.requestOf(caller.userId, b.msgId as number));
    return access.reply(kind, caller, {
      requestId,
      result: b.result,
      message: b.message,
      visitTime: b.visitTime,
    });
  }
  serve(a.visitReply, ({ caller, input }) => answer(caller, "visit", input));
  serve(a.visitVerify, ({ caller, input }) => answer(caller, "visit", input));
  serve(a.bindReply, ({ caller, input }) => answer(caller, "bind", input));
  serve(a.bindVerify, ({ caller, input }) => answer(caller, "bind", input));

  serve(a.auditProcess, async ({ caller, input }) => {
    const userId = caller.userId;
    const requestId =
      input.requestId ?? (input.msgId ? await messages.requestOf(userId, input.msgId) : 0);
    if (!requestId) throw fail("REQUEST_NOT_FOUND");
    return access.auditProcess(userId, requestId);
  });
  serve(a.rights, ({ caller, input }) => access.rights(caller, input.machineID));

  // ---- Authority centre ----

  serve(a.select, async ({ caller, input: { machineID, infoType, start } }) => {
    if (infoType === INFO_TYPE.admins) {
      const list = await access.members(caller, machineID);
      return { list: list.slice(start, start + PAGE_SIZE.admins), total: list.length };
    }
    if (infoType === INFO_TYPE.validVisit)
      return access.validVisits(caller, machineID, start, PAGE_SIZE.validVisitors);
    return access.blackList(caller, machineID, start, PAGE_SIZE.admins);
  });
  serve(a.alarmMembers, async ({ caller, input }) =>
    listOf((await access.members(caller, input.machineID)).filter((m) => m.role !== "visitor")),
  );
  serve(a.whiteList, ({ caller, input }) =>
    access.whiteList(caller, input.deviceId, input.page, input.pageSize),
  );
  serve(a.addBkey, async ({ caller, input }) =>
    listOf(
      await access.addBkey(
        caller,
        input.machineID,
        parseAccountString(input.account, input.countryCode),
      ),
    ),
  );
  serve(a.updateLevel, async ({ caller, input }) =>
    listOf(await access.updateLevel(caller, input.machineID, input.id, input.limit)),
  );
  serve(a.zeroVisitTime, ({ caller, input }) =>
    access.clearVisitTime(caller, input.machineID, input.visitAlidTimeID),
  );
  serve(a.setVisitTime, ({ caller, input }) =>
    access.setVisitTime(caller, input.machineID, input.visitTimeId, input.visitTime),
  );
  serve(a.clearVisitTime, ({ caller, input }) =>
    access.clearVisitTime(caller, input.machineID, input.visitTimeId),
  );
  serve(a.blacklistAdd, ({ caller, input }) =>
    access.blacklistAdd(caller, input.machineID, input.userId),
  );
  serve(a.blacklistRemove, ({ caller, input }) =>
    access.blacklistRemove(caller, input.machineID, input.userId),
  );
  serve(a.removeMember, ({ caller, input }) =>
    access.removeMember(caller, input.machineID, input.id),
  );
  serve(a.setWrite, ({ caller, input }) =>
    access.setLevel(caller, input.machineID, input.userId, { write: input.write === 1 }),
  );
  serve(a.setAlarm, ({ caller, input }) =>
    access.setLevel(caller, input.machineID, input.userId, { alarm: input.alarm === 1 }),
  );
  serve(
    a.updateDeviceInfo,
    ({ caller, input }) =>
      access.updateDeviceInfo(caller, {
        code: input.machineCode,
        name: input.machineName,
        checkType: input.checkType,
        password: input.password,
      }),
    GUESS_LIMIT,
  );
  serve(a.transfer, ({ caller, input }) =>
    access.transfer(caller, input.machineID, parseAccountString(input.account, input.countryCode)),
  );
  serve(a.confirmAllAlarms, ({ caller, input }) =>
    access.confirmAllAlarms(caller, input.machineID),
  );
}
