import { AUDIT_STATE, HW, type ProvisionedDevice } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

/**
 * Issue 17 "request access": a user who has only a machine code — the device is not in their
 * list and they do not know its password — looks it up (scanCodeCheck) and asks to visit or
 * bind it (addVisit / addBind by machineID), exactly as the web app's add and request dialogs
 * and the phone's sheet do. The device password counts only in Akey+password mode; every
 * refusal of SPEC §8 stays (black list, already administrator / user / bound, too frequent,
 * cloud expired, no owner), and the lookup is limited per address.
 */

let h: Harness;
let operator: string;

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
});
afterAll(async () => {
  await h?.close();
});

type Person = Awaited<ReturnType<Harness["person"]>>;

const person = (name: string) => h.person(name);

async function ownedDevice(): Promise<{ owner: Person; device: ProvisionedDevice; id: number }> {
  const owner = await person("Owner");
  const [device] = await h.provision(operator);
  const { id } = await h.addDevice(owner.token, device, "Press line");
  return { owner, device, id };
}

const scan = (p: Person, machineCode: string, ip?: string) =>
  h.call("POST", "/api/v1/cloudSet/scanCodeCheck", { form: { machineCode }, token: p.token, ip });
/** The web app's visit request: machine id, terminal and message; no password field at all. */
const visit = (p: Person, machineID: number, extra: Record<string, string> = {}) =>
  h.call("POST", "/api/v1/audit/addVisit", {
    form: { machineID, terminalID: "t-web", terminalName: "Chrome", message: "Line 2", ...extra },
    token: p.token,
  });
const bind = (p: Person, machineID: number, extra: Record<string, string> = {}) =>
  h.call("POST", "/api/v1/audit/addBind", {
    form: { machineID, remarks: "", message: "Bind me", ...extra },
    token: p.token,
  });
const listed = async (p: Person) =>
  (await h.call("POST", "/api/machine/select", { form: {}, token: p.token })).body.hwdata as {
    list: { machine_id: number; role: string }[];
  };
const minutes = (n: number) => h.clock.advance(n * 60_000);

describe("request access by machine code alone", () => {
  it("lets a user without the device in their list ask to visit and to bind, with no password", async () => {
    const { owner, device, id } = await ownedDevice();
    const asker = await person("Asker");
    expect((await listed(asker)).list).toEqual([]);

    // The code as typed: lower case, with spaces around it.
    const looked = await scan(asker, `  ${device.machineCode.toLowerCase()} `);
    expect(looked.body).toMatchObject({
      hwcode: 0,
      hwdata: {
        machine_id: id,
        machine_code: device.machineCode,
        role: "none",
        blacklisted: false,
        has_akey: true,
        check_type: 0,
        cloud_service: 1,
      },
    });

    const visited = await visit(asker, id);
    expect(visited.body).toMatchObject({
      hwcode: 0,
      hwdata: { kind: "visit", machine_id: id, auditState: AUDIT_STATE.pending, isResult: 0 },
    });
    const bound = await bind(asker, id);
    expect(bound.body).toMatchObject({
      hwcode: 0,
      hwdata: { kind: "bind", machine_id: id, auditState: AUDIT_STATE.pending },
    });
    // Asking adds nothing to the asker's list; the owner has both requests to answer.
    expect((await listed(asker)).list).toEqual([]);
    const inbox = await h.call("POST", "/api/msg/v1/page", {
      form: { box: "inbox", page: 1, pageSize: 20 },
      token: owner.token,
    });
    const asked = inbox.body.hwdata.list.map(
      (m: { request: { id: number; canReply?: boolean } | null; canReply: boolean }) => [
        m.request?.id,
        m.canReply,
      ],
    );
    expect(asked).toEqual(
      expect.arrayContaining([
        [visited.body.hwdata.id, true],
        [bound.body.hwdata.id, true],
      ]),
    );

    // Approved: the device joins the asker's list as a white-list visitor, then as a user.
    const agree = (kind: "visit" | "bind", requestId: number) =>
      h.call("POST", `/api/v1/audit/${kind}Reply`, {
        form: { requestId, result: "agree", message: "ok", visitTime: -1 },
        token: owner.token,
      });
    expect((await agree("visit", visited.body.hwdata.id)).body.hwdata.auditState).toBe(
      AUDIT_STATE.allPassed,
    );
    expect((await listed(asker)).list).toMatchObject([{ machine_id: id, role: "visitor" }]);
    expect((await agree("bind", bound.body.hwdata.id)).body.hwdata.auditState).toBe(
      AUDIT_STATE.allPassed,
    );
    expect((await listed(asker)).list).toMatchObject([{ machine_id: id, role: "user" }]);
    expect((await scan(asker, device.machineCode)).body.hwdata.role).toBe("user");
    expect((await visit(asker, id)).body).toMatchObject({
      hwcode: 203,
      hwdata: { reason: "GENERAL_USER" },
    });
  });

  it("ignores a password sent in Akey+Bkey mode, and needs it only in Akey+password mode", async () => {
    const { owner, device, id } = await ownedDevice();
    const asker = await person("Asker");
    // Whatever a client sends as a password, approval mode asks the approvers.
    const guessed = await visit(asker, id, { password: "not-the-password" });
    expect(guessed.body).toMatchObject({ hwcode: 0, hwdata: { auditState: AUDIT_STATE.pending } });

    const switched = await h.call("POST", "/api/cloudSet/updateMachineInfo", {
      form: { machineCode: device.machineCode, checkType: 1, password: device.devicePassword },
      token: owner.token,
    });
    expect(switched.body.hwcode).toBe(0);
    const other = await person("Other");
    expect((await scan(other, device.machineCode)).body.hwdata.check_type).toBe(1);
    expect((await visit(other, id)).body.hwcode).toBe(HW.VISIT_PASSWORD_ERROR.code);
    expect((await bind(other, id)).body.hwcode).toBe(HW.VISIT_PASSWORD_ERROR.code);
    const granted = await visit(other, id, { password: device.devicePassword });
    expect(granted.body).toMatchObject({
      hwcode: 0,
      hwdata: { auditState: AUDIT_STATE.allPassed },
    });
  });

  it("keeps every refusal: black list, administrator, user, bound, too frequent, closed, no owner", async () => {
    const { owner, device, id } = await ownedDevice();

    // Too frequent: the same kind within BIND_RETRY_MINUTES; the other kind still goes.
    const asker = await person("Asker");
    expect((await visit(asker, id)).body.hwcode).toBe(0);
    expect((await visit(asker, id)).body.hwcode).toBe(HW.TOO_FREQUENT.code);
    expect((await bind(asker, id)).body.hwcode).toBe(0);
    minutes(6);
    expect((await visit(asker, id)).body.hwcode).toBe(0);

    // The owner and a Bkey are administrators already.
    const admin = await person("Admin");
    const pushed = await h.call("POST", "/api/admin/push", {
      form: { machineID: id, account: admin.email },
      token: owner.token,
    });
    expect(pushed.body.hwcode).toBe(0);
    for (const who of [owner, admin]) {
      expect((await scan(who, device.machineCode)).body.hwdata.role).toBe(
        who === owner ? "akey" : "bkey",
      );
      expect((await visit(who, id)).body).toMatchObject({
        hwcode: 203,
        hwdata: { reason: "ADMINISTRATOR" },
      });
      expect((await bind(who, id)).body).toMatchObject({
        hwcode: 203,
        hwdata: { reason: "BOUND" },
      });
    }

    // Black-listed: the lookup says so, and both requests are refused.
    const barred = await person("Barred");
    const blocked = await h.call("POST", "/api/admin/blacklist/add", {
      form: { machineID: id, userId: barred.userId },
      token: owner.token,
    });
    expect(blocked.body.hwcode).toBe(0);
    expect((await scan(barred, device.machineCode)).body.hwdata).toMatchObject({
      role: "none",
      blacklisted: true,
    });
    for (const ask of [visit, bind])
      expect((await ask(barred, id)).body).toMatchObject({
        hwcode: 203,
        hwdata: { reason: "BLACKLIST" },
      });

    // Cloud service closed by the owner: 416.
    await h.call("POST", "/api/machine/machineCloudSwitchState", {
      form: { machineId: id, state: 0 },
      token: owner.token,
    });
    const late = await person("Late");
    expect((await scan(late, device.machineCode)).body.hwdata.cloud_service).toBe(0);
    expect((await visit(late, id)).body.hwcode).toBe(HW.CLOUD_EXPIRED.code);

    // A code nobody has added yet: the lookup says there is no owner; nobody to ask.
    const [free] = await h.provision(operator);
    const unowned = await scan(late, free.machineCode);
    expect(unowned.body.hwdata).toMatchObject({ role: "none", has_akey: false });
    expect((await visit(late, unowned.body.hwdata.machine_id)).body.hwcode).toBe(
      HW.MACHINE_CODE_NOT_FOUND.code,
    );
    // An unknown code and an unknown device.
    expect((await scan(late, "NO-SUCH-CODE-1")).body.hwcode).toBe(HW.MACHINE_CODE_NOT_FOUND.code);
    expect((await visit(late, 2_000_000)).body.hwcode).toBe(HW.EDIT_MACHINE_NOT_FOUND.code);
  });

  it("limits lookups per address (60 a minute), not per keystroke of one user", async () => {
    const looker = await person("Looker");
    const [free] = await h.provision(operator);
    const ip = "203.0.113.77";
    for (let i = 0; i < 60; i++)
      expect((await scan(looker, free.machineCode, ip)).body.hwcode, `lookup ${i + 1}`).toBe(0);
    const held = await scan(looker, free.machineCode, ip);
    expect(held.status).toBe(429);
    expect(held.body.hwcode).toBe(HW.RATE_LIMITED.code);
    // Another address is not held.
    expect((await scan(looker, free.machineCode, "203.0.113.78")).body.hwcode).toBe(0);
  });
});
