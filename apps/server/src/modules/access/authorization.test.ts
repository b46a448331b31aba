import { HW, type HwKey } from "@keyway/shared";
import { and, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testConfig } from "../../config.ts";
import { encryptSecret } from "../../infra/crypto.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Envelope, type Harness } from "../../testing/harness.ts";
import { users } from "../accounts/schema.ts";
import { alarms } from "../alarms/schema.ts";
import { cameraAccounts } from "../cameras/schema.ts";
import { deviceLinks, devices } from "../devices/schema.ts";
import { messages } from "../messages/schema.ts";
import { visits } from "../visits/schema.ts";
import { newVisitId } from "../visits/service.ts";

/**
 * Authorization as one table: every SPEC §6 role × every SPEC §7 call that acts on a device,
 * a project, an enterprise or a message, against the real HTTP API. The world is built once.
 * In each row the refused cells run first, then the allowed ones; what an allowed cell
 * changed is undone at once (`restore`), and the rows that cannot be undone come last.
 *
 * The subjects:
 * - device D: a personal device (Akey `akey`; Bkeys `bkey` and the helper `bkey2`; white-list
 *   visitor `visitor` with a forever visit time; ordinary user `user` (bound by a bind
 *   request); `lapsed`, a white-list visitor whose visit time was cleared (the device is in
 *   their list, with no right left); `black` on its black list), maintained by enterprise E
 *   (E's maintenance list), online, with an alarm, a 4G card and a camera account bound;
 * - device ED: E's own enterprise device (E's enterprise list), online;
 * - enterprise E: `member` (an enterprise member), `maint` (a maintenance member), `admin`
 *   (an enterprise admin, of the member kind);
 * - project P: personal project of `owner` (level 3) with `puser` (level 2), whose machine DP
 *   is the owner's own device, with enable_get_visit_url on (DP2: another device of the owner);
 * - a message: one of the Akey's inbox messages;
 * - `outsider`: another tenant, with no relation to any of them: the admin of its own
 *   enterprise E2 and owner of its own project P2 (the E2 / P2 rows try to reach D through
 *   them; every other role is a stranger to E2 and P2).
 *
 * Legend: ok = allowed (hwcode 0); "-" = answered (hwcode 0) but the subject is left out of
 * the list; any other cell is the refusal expected, by its CODES abbreviation below.
 */
const TABLE = `
call                                   | akey  bkey  visitor user  lapsed black member maint admin owner puser outsider
device list shows D                    | ok    ok    ok      ok    ok     -     -      -     -     -     -     -
device detail                          | ok    ok    ok      ok    ok     NF    NF     NF    NF    NF    NF    NF
device edit (own name)                 | ok    ok    ok      ok    ok     NF    NF     NF    NF    NF    NF    NF
device state                           | ok    ok    ok      ok    ok     NF    NF     ok    ok    NF    NF    NF
device states list shows D             | ok    ok    ok      ok    ok     -     -      ok    ok    -     -     -
move D out of a group                  | ok    ok    ok      ok    ok     NF    NF     NF    NF    NF    NF    NF
cloud switch, read                     | ok    ok    ok      ok    ok     NF    NF     NF    NF    NF    NF    NF
cloud switch, turn                     | ok    NP    NP      NP    NP     NF    NF     NF    NF    NF    NF    NF
audit mode                             | ok    NP    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
connect check                          | ok    ok    ok      ok    TMO    BL    UNB    ok    ok    UNB   UNB   UNB
visit URL                              | ok    ok    ok      ok    TMO    BL    UNB    ok    ok    UNB   UNB   UNB
visit request                          | ADM   ADM   GEN     GEN   ok     BL    ok     ok    ok    ok    ok    ok
bind request                           | BND   BND   ok      BND   ok     BL    ok     ok    ok    ok    ok    ok
members (Bkey tab)                     | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
valid visit times                      | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
black list                             | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
white list                             | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
alarm takers                           | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
add a Bkey                             | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
remove an ordinary user                | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
remove a Bkey                          | ok    NP    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
remove the Akey                        | AK    AK    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
make an ordinary user a Bkey           | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
make a Bkey an ordinary user           | ok    NP    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
make the Akey an ordinary user         | AK    AK    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
black-list a user                      | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
black-list a Bkey                      | ok    NP    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
black-list the Akey                    | NP    AK    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
lift a black-listing                   | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
set a visit time                       | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
zero a visit time                      | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
clear a visit time                     | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
read/write level of a user             | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
read/write level of a Bkey             | ok    NP    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
read/write level of the Akey           | AK    AK    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
alarm level of a user                  | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
alarm level of a Bkey                  | ok    NP    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
alarm level of the Akey                | ok    AK    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
own alarm level                        | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
visit log                              | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
end a visit                            | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
audit process of a request             | ok    ok    RNF     RNF   RNF    RNF   RNF    RNF   RNF   RNF   RNF   RNF
answer a visit request                 | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
answer a bind request                  | ok    ok    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
answer through the Akey's message      | ok    MNF   MNF     MNF   MNF    MNF   MNF    MNF   MNF   MNF   MNF   MNF
alarms of D                            | ok    ok    ok      ok    ok     NF    NF     NF    NF    NF    NF    NF
alarms of D in E                       | 403   403   403     403   403    403   NF     ok    ok    403   403   403
confirm an alarm                       | ok    ok    NP      ok    NP     ANF   ANF    ANF   ANF   ANF   ANF   ANF
confirm an alarm in E                  | 403   403   403     403   403    403   ANF    ok    ok    403   403   403
confirm all alarms                     | ok    NP    NP      NP    NP     NP    NP     ok    NP    NP    NP    NP
reset alarms                           | ok    ok    NP      NP    NP     NF    NF     NF    NF    NF    NF    NF
reset alarms in E                      | 403   403   403     403   403    403   NF     ok    ok    403   403   403
alarm SMS switch                       | ok    ok    ok      ok    ok     NP    NP     NP    NP    NP    NP    NP
alarm SMS switch in E                  | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   ok    MGT   MGT   MGT
alarm push devices of E show D         | MGT   MGT   MGT     MGT   MGT    MGT   -      ok    ok    MGT   MGT   MGT
alarm push devices of E show ED        | MGT   MGT   MGT     MGT   MGT    MGT   ok     -     ok    MGT   MGT   MGT
camera binding                         | ok    ok    ok      ok    ok     NF    NF     NF    NF    NF    NF    NF
bind a camera account                  | ok    NP    NP      NP    NP     NF    NF     NF    NF    NF    NF    NF
release the camera account             | ok    NP    NP      NP    NP     NF    NF     NF    NF    NF    NF    NF
location                               | ok    ok    ok      ok    ok     NF    NF     NF    NF    NF    NF    NF
place by hand                          | ok    ok    NP      NP    NP     NF    NF     NF    NF    NF    NF    NF
automatic location way                 | ok    ok    NP      NP    NP     NF    NF     NF    NF    NF    NF    NF
fresh location fix                     | ok    ok    NP      NP    NP     NF    NF     NF    NF    NF    NF    NF
4G card                                | ok    ok    CNF     CNF   CNF    CNF   CNF    CNF   CNF   CNF   CNF   CNF
4G card in E                           | 403   403   403     403   403    403   CNF    ok    ok    403   403   403
4G warnings                            | ok    ok    NF      NF    NF     NF    NF     NF    NF    NF    NF    NF
alarm centre of E lists D's alarm      | 403   403   403     403   403    403   -      ok    ok    403   403   403
cloud map of E shows D                 | 403   403   403     403   403    403   -      ok    ok    403   403   403
enterprise info                        | 403   403   403     403   403    403   ok     ok    ok    403   403   403
enterprise device list                 | 403   403   403     403   403    403   ok     403   ok    403   403   403
maintenance device list                | 403   403   403     403   403    403   403    ok    ok    403   403   403
device D in E                          | 403   403   403     403   403    403   NF     ok    ok    403   403   403
device ED in E                         | 403   403   403     403   403    403   ok     NF    ok    403   403   403
maintenance people of D                | 403   403   403     403   403    403   NF     ok    ok    403   403   403
maintenance remark of D                | 403   403   403     403   403    403   NF     ok    ok    403   403   403
maintenance team                       | 403   403   403     403   403    403   ok     ok    ok    403   403   403
visit URL of D in E                    | 403   403   403     403   403    403   NF     ok    ok    403   403   403
visit URL of ED in E                   | 403   403   403     403   403    403   ok     NF    ok    403   403   403
connect check of ED                    | UNB   UNB   UNB     UNB   UNB    UNB   ok     UNB   ok    UNB   UNB   UNB
E2 (outsider's): device D              | 403   403   403     403   403    403   403    403   403   403   403   NF
E2: visit URL of D                     | 403   403   403     403   403    403   403    403   403   403   403   NF
E2: alarms of D                        | 403   403   403     403   403    403   403    403   403   403   403   NF
E2: confirm D's alarm                  | 403   403   403     403   403    403   403    403   403   403   403   ANF
E2: reset D's alarms                   | 403   403   403     403   403    403   403    403   403   403   403   NF
E2: 4G card of D                       | 403   403   403     403   403    403   403    403   403   403   403   CNF
E2: alarm SMS switch of D              | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   MGT   MGT   MGT   NP
E2: maintenance remark of D            | 403   403   403     403   403    403   403    403   403   403   403   NF
enterprise members                     | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   ok    MGT   MGT   MGT
add an enterprise member               | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   ok    MGT   MGT   MGT
remove an enterprise member            | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   ok    MGT   MGT   MGT
create an enterprise group             | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   ok    MGT   MGT   MGT
assign a device to E (operator's)      | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   MGT   MGT   MGT   MGT
enterprise SMS settings                | MGT   MGT   MGT     MGT   MGT    MGT   MGT    MGT   ok    MGT   MGT   MGT
project                                | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    ok    PNF
project users                          | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    ok    PNF
project machines                       | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    ok    PNF
project report server                  | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    ok    PNF
edit the project                       | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
reset the project key                  | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
add a project user                     | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
remove a project user                  | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
leave the project                      | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   QUIT  ok    PNF
add a machine to the project           | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
remove a machine from the project      | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
project visit URL                      | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    UNB   PNF
transfer the project                   | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
transfer project to a no-project user  | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   OFF   PO    PNF
delete the project                     | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   ok    PO    PNF
P2 (outsider's): add D                 | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   PNF   PNF   PMNF
P2: visit URL of D                     | PNF   PNF   PNF     PNF   PNF    PNF   PNF    PNF   PNF   PNF   PNF   PMNF
read the Akey's message                | ok    MNF   MNF     MNF   MNF    MNF   MNF    MNF   MNF   MNF   MNF   MNF
mark the Akey's message read           | ok    MNF   MNF     MNF   MNF    MNF   MNF    MNF   MNF   MNF   MNF   MNF
delete the Akey's message              | ok    MNF   MNF     MNF   MNF    MNF   MNF    MNF   MNF   MNF   MNF   MNF
transfer the device                    | ok    NP    NP      NP    NP     NP    NP     NP    NP    NP    NP    NP
delete the device                      | ok    ok    ok      ok    ok     GONE  GONE   GONE  GONE  GONE  GONE  GONE
`;

/** The refusals of the table, by the abbreviation used in its cells. */
const CODES = {
  NF: "EDIT_MACHINE_NOT_FOUND", // 04010412 device does not exist (not in the caller's reach)
  NP: "DEVICE_NO_PERMISSION", // 04012201 no permission to operate
  AK: "AKEY_UNCHANGEABLE", // 01010409 the Akey's identity cannot be changed
  403: "NO_PERMISSION", // 403 user has no permission (not a member of the enterprise)
  MGT: "NO_MANAGEMENT_ACCESS", // 06010201 no access to the management interface
  UNB: "NOT_BOUND", // 203 WRONG_ROLE: not bound, no right to visit
  BL: "REQUEST_BLACKLISTED", // 203 BLACKLIST
  ADM: "REQUEST_ADMINISTRATOR", // 203 ADMINISTRATOR
  GEN: "REQUEST_GENERAL_USER", // 203 GENERAL_USER
  BND: "ALREADY_BOUND", // 203 BOUND
  TMO: "VISIT_TIMEOUT", // 504 cloud visit timeout (the visit time ended)
  GONE: "DELETE_MACHINE_GONE", // 040103010 device already deleted (not in the caller's list)
  ANF: "ALARM_NOT_FOUND", // 04012501
  CNF: "IOT_CARD_NOT_FOUND", // 15010101
  RNF: "REQUEST_NOT_FOUND", // 01010201
  MNF: "MESSAGE_NOT_FOUND", // 09010101
  PNF: "PROJECT_NOT_FOUND", // 08010101
  PO: "PROJECT_NOT_OWNER", // 08010201
  QUIT: "PROJECT_OWNER_CANNOT_QUIT", // 08011101
  PMNF: "PROJECT_MACHINE_NOT_FOUND", // 08011202 the device is not the owner's or not in the project
  OFF: "PROJECT_TRANSFER_TARGET_DISABLED", // 08011401 the target's account has projects off
} as const satisfies Record<string, HwKey>;

const ROLES = [
  "akey",
  "bkey",
  "visitor",
  "user",
  "lapsed",
  "black",
  "member",
  "maint",
  "admin",
  "owner",
  "puser",
  "outsider",
] as const;
type Role = (typeof ROLES)[number];
/** People the world needs besides the roles: targets of the calls. */
type Helper = "bkey2" | "spare" | "newcomer" | "requester";
type Person = Role | Helper;

type Res = { status: number; body: Envelope };

interface Call {
  run: (as: Role) => Promise<Res>;
  /** List calls: whether the subject is in the answer ("ok" needs it, "-" its absence). */
  shows?: (hwdata: Envelope["hwdata"]) => boolean;
  /** Undoes what an allowed cell changed (run after every answer with hwcode 0). */
  restore?: (as: Role, res: Res) => Promise<unknown>;
  before?: () => Promise<unknown>;
  after?: () => Promise<unknown>;
  /** The cell that must run after every other (it ends what the others act on). */
  last?: Role;
}

let h: Harness;
let operator: string;
const token = {} as Record<Person, string>;
const uid = {} as Record<Person, number>;
const email = {} as Record<Person, string>;
const D = { id: 0, code: "" };
const ED = { id: 0, code: "" };
const DP = { id: 0, code: "" };
const DP2 = { id: 0, code: "" };
const secrets = new Map<number, string>();
let eid = 0;
let projectId = 0;
let eid2 = 0;
let project2Id = 0;
let alarmId = 0;
let cameraId = 0;
let visitorGrant = 0;
let startedVisit = "";
const pendingRequest: Partial<Record<"visit" | "bind", number>> = {};

type Body = Record<string, string | number>;
const as = (
  who: Person,
  method: "GET" | "POST" | "PUT" | "DELETE",
  url: string,
  body: Body = {},
): Promise<Res> =>
  h.call(method, url, {
    // DELETE bodies go as JSON, like the web client sends them.
    ...(method === "GET" ? {} : method === "DELETE" ? { json: body } : { form: body }),
    token: token[who],
  });
const get = (who: Person, url: string) => as(who, "GET", url);
const post = (who: Person, url: string, form: Body = {}) => as(who, "POST", url, form);
const byOperator = (method: "POST" | "DELETE", url: string, body: Body): Promise<Res> =>
  h.call(method, url, {
    ...(method === "POST" ? { form: body } : { json: body }),
    token: operator,
  });

function ok(res: Res, what: string): Res {
  if (res.body.hwcode !== 0) throw new Error(`${what}: ${JSON.stringify(res.body)}`);
  return res;
}

/** A person's place on device D (device_links.id), for the calls that name a member entry. */
async function linkOf(who: Person): Promise<number> {
  const [link] = await h.db
    .select({ id: deviceLinks.id })
    .from(deviceLinks)
    .where(and(eq(deviceLinks.deviceId, D.id), eq(deviceLinks.userId, uid[who])));
  if (!link) throw new Error(`${who} has no place on D`);
  return link.id;
}

/** `who` becomes an ordinary user of D again, as the Akey can make them (Bkey, then level 1). */
async function makeOrdinary(who: Person) {
  ok(await post("akey", "/api/admin/push", { machineID: D.id, account: email[who] }), "add");
  ok(
    await post("akey", "/api/admin/updateLevel", {
      id: await linkOf(who),
      machineID: D.id,
      limit: 1,
    }),
    "downgrade",
  );
}

/** A visit or bind request of `requester` on D still waiting for both sides. */
async function pending(kind: "visit" | "bind"): Promise<number> {
  const waiting = pendingRequest[kind];
  if (waiting) return waiting;
  // One request per kind every 5 minutes (SPEC §9): the clock moves on.
  h.clock.advance(6 * 60_000);
  const res = ok(
    await post("requester", kind === "visit" ? "/api/v1/audit/addVisit" : "/api/v1/audit/addBind", {
      machineID: D.id,
      message: "please",
    }),
    `${kind} request`,
  );
  pendingRequest[kind] = res.body.hwdata.id;
  return res.body.hwdata.id;
}

/** The Akey's newest inbox message (optionally the one about a request). */
async function akeyMessage(requestId?: number): Promise<number> {
  const [row] = await h.db
    .select({ id: messages.id })
    .from(messages)
    .where(
      and(
        eq(messages.userId, uid.akey),
        eq(messages.box, "inbox"),
        requestId ? eq(messages.requestId, requestId) : undefined,
      ),
    )
    .orderBy(desc(messages.id))
    .limit(1);
  if (!row) throw new Error("the Akey has no message");
  return row.id;
}

/**
 * The device's agent holds its tunnel (for visit URLs). Checked before each use: an
 * injected tunnel that never pings is dropped as silent after 45 s.
 */
async function online(device: { id: number; code: string }) {
  const tunnels = h.app.services.tunnels;
  if (tunnels.isOnline(device.id)) return;
  const auth = Buffer.from(`${device.code}:${secrets.get(device.id)}`).toString("base64");
  await h.app.injectWS("/tunnel", { headers: { authorization: `Basic ${auth}` } });
  for (let i = 0; i < 100 && !tunnels.isOnline(device.id); i++)
    await new Promise((r) => setTimeout(r, 20));
}

const listHas =
  (id: number, key = "machine_id") =>
  (hwdata: Envelope["hwdata"]) =>
    (hwdata.list as Record<string, unknown>[]).some((m) => m[key] === id);

const D_ = () => ({ machineID: D.id });

/** How each row of the table is called; every row names a call here and the reverse. */
const CALLS: Record<string, Call> = {
  // ---- Device D, personal context ----
  "device list shows D": {
    run: (r) => post(r, "/api/machine/select"),
    shows: (hwdata) => listHas(D.id)(hwdata),
  },
  "device detail": { run: (r) => get(r, `/api/device/v1/detail?deviceId=${D.id}`) },
  "device edit (own name)": {
    run: (r) =>
      post(r, "/api/machine/update", { updateMachineID: D.id, updateMachineName: "Press line" }),
  },
  "device state": { run: (r) => post(r, "/api/machine/getMachineState", { machineCode: D.code }) },
  "device states list shows D": {
    run: (r) => as(r, "POST", "/api/machine/machineStates", {}),
    shows: (hwdata) => listHas(D.id)(hwdata),
  },
  "move D out of a group": {
    run: (r) => as(r, "PUT", "/api/device/v1/userGroup/move", { groupId: 0, deviceIds: D.id }),
  },
  "cloud switch, read": {
    run: (r) => post(r, "/api/machine/machineCloudSwitchState", { machineId: D.id }),
  },
  "cloud switch, turn": {
    // Turned to open, as it is: an allowed cell changes nothing.
    run: (r) => post(r, "/api/machine/machineCloudSwitchState", { machineId: D.id, state: 1 }),
  },
  "audit mode": {
    run: (r) => post(r, "/api/cloudSet/updateMachineInfo", { machineCode: D.code, checkType: 0 }),
  },
  "connect check": { run: (r) => post(r, "/api/v1/audit/checkCloudServiceState", D_()) },
  "visit URL": {
    run: async (r) => {
      await online(D);
      return post(r, "/api/v1/audit/getValidVisitUrl", D_());
    },
  },
  "visit request": {
    // The setup's own requests are younger than the 5 minutes between two (SPEC §9).
    before: async () => h.clock.advance(6 * 60_000),
    run: (r) => post(r, "/api/v1/audit/addVisit", { ...D_(), message: "please" }),
  },
  "bind request": {
    run: (r) => post(r, "/api/v1/audit/addBind", { ...D_(), message: "please" }),
  },

  // ---- Authority centre of D ----
  "members (Bkey tab)": {
    run: (r) => post(r, "/api/admin/select", { ...D_(), infoType: 2 }),
  },
  "valid visit times": {
    run: (r) => post(r, "/api/admin/select", { ...D_(), infoType: 3 }),
  },
  "black list": { run: (r) => post(r, "/api/admin/select", { ...D_(), infoType: -1 }) },
  "white list": {
    run: (r) => post(r, "/api/device/v1/admin/visit/detail/page", { deviceId: D.id }),
  },
  "alarm takers": { run: (r) => post(r, "/api/admin/alarmMsgSelect", D_()) },
  "add a Bkey": {
    run: (r) => post(r, "/api/admin/push", { ...D_(), account: email.newcomer }),
    restore: async () =>
      post("akey", "/api/admin/member/remove", { ...D_(), id: await linkOf("newcomer") }),
  },
  "remove an ordinary user": {
    run: async (r) => post(r, "/api/admin/member/remove", { ...D_(), id: await linkOf("spare") }),
    restore: () => makeOrdinary("spare"),
  },
  "remove a Bkey": {
    run: async (r) => post(r, "/api/admin/member/remove", { ...D_(), id: await linkOf("bkey2") }),
    restore: () => post("akey", "/api/admin/push", { ...D_(), account: email.bkey2 }),
  },
  "remove the Akey": {
    run: async (r) => post(r, "/api/admin/member/remove", { ...D_(), id: await linkOf("akey") }),
  },
  "make an ordinary user a Bkey": {
    run: async (r) =>
      post(r, "/api/admin/updateLevel", { ...D_(), id: await linkOf("spare"), limit: 2 }),
    restore: async () =>
      post("akey", "/api/admin/updateLevel", { ...D_(), id: await linkOf("spare"), limit: 1 }),
  },
  "make a Bkey an ordinary user": {
    run: async (r) =>
      post(r, "/api/admin/updateLevel", { ...D_(), id: await linkOf("bkey2"), limit: 1 }),
    restore: async () =>
      post("akey", "/api/admin/updateLevel", { ...D_(), id: await linkOf("bkey2"), limit: 2 }),
  },
  "make the Akey an ordinary user": {
    run: async (r) =>
      post(r, "/api/admin/updateLevel", { ...D_(), id: await linkOf("akey"), limit: 1 }),
  },
  "black-list a user": {
    run: (r) => post(r, "/api/admin/blacklist/add", { ...D_(), userId: uid.newcomer }),
    restore: () => post("akey", "/api/admin/blacklist/remove", { ...D_(), userId: uid.newcomer }),
  },
  "black-list a Bkey": {
    run: (r) => post(r, "/api/admin/blacklist/add", { ...D_(), userId: uid.bkey2 }),
    // Appointing a black-listed user as Bkey lifts the listing (docs/architecture/permissions.md).
    restore: () => post("akey", "/api/admin/push", { ...D_(), account: email.bkey2 }),
  },
  "black-list the Akey": {
    run: (r) => post(r, "/api/admin/blacklist/add", { ...D_(), userId: uid.akey }),
  },
  "lift a black-listing": {
    run: (r) => post(r, "/api/admin/blacklist/remove", { ...D_(), userId: uid.black }),
    restore: () => post("akey", "/api/admin/blacklist/add", { ...D_(), userId: uid.black }),
  },
  "set a visit time": {
    run: (r) =>
      as(r, "PUT", "/api/device/v1/visit/time", {
        ...D_(),
        visitTimeId: visitorGrant,
        visitTime: 600,
      }),
    restore: () => foreverAgain(),
  },
  "zero a visit time": {
    run: (r) => post(r, "/api/admin/zeroVisitTime", { ...D_(), visitAlidTimeID: visitorGrant }),
    restore: () => foreverAgain(),
  },
  "clear a visit time": {
    run: (r) =>
      as(r, "DELETE", "/api/device/v1/visit/time", { ...D_(), visitTimeId: visitorGrant }),
    restore: () => foreverAgain(),
  },
  "read/write level of a user": {
    run: (r) => post(r, "/api/machine/limitReadSet", { ...D_(), userId: uid.user, write: 1 }),
  },
  "read/write level of a Bkey": {
    run: (r) => post(r, "/api/machine/limitReadSet", { ...D_(), userId: uid.bkey2, write: 1 }),
  },
  "read/write level of the Akey": {
    run: (r) => post(r, "/api/machine/limitReadSet", { ...D_(), userId: uid.akey, write: 1 }),
  },
  "alarm level of a user": {
    run: (r) => post(r, "/api/machine/limitAlarmSet", { ...D_(), userId: uid.user, alarm: 1 }),
  },
  "alarm level of a Bkey": {
    run: (r) => post(r, "/api/machine/limitAlarmSet", { ...D_(), userId: uid.bkey2, alarm: 0 }),
    restore: () =>
      post("akey", "/api/machine/limitAlarmSet", { ...D_(), userId: uid.bkey2, alarm: 1 }),
  },
  "alarm level of the Akey": {
    run: (r) => post(r, "/api/machine/limitAlarmSet", { ...D_(), userId: uid.akey, alarm: 0 }),
    restore: () =>
      post("akey", "/api/machine/limitAlarmSet", { ...D_(), userId: uid.akey, alarm: 1 }),
  },
  "own alarm level": {
    run: (r) => post(r, "/api/machine/limitAlarmSet", { ...D_(), userId: uid[r], alarm: 1 }),
  },
  "visit log": { run: (r) => get(r, `/api/device/v1/visits?deviceId=${D.id}`) },
  "end a visit": {
    run: (r) => post(r, "/api/device/v1/visits/end", { visitId: startedVisit }),
  },
  "audit process of a request": {
    run: async (r) => get(r, `/api/v1/devices/auditProcess?requestId=${await pending("visit")}`),
  },
  "answer a visit request": {
    run: async (r) =>
      post(r, "/api/v1/audit/visitReply", {
        requestId: await pending("visit"),
        result: "refuse",
        message: "not now",
      }),
    restore: async () => delete pendingRequest.visit,
  },
  "answer a bind request": {
    run: async (r) =>
      post(r, "/api/v1/audit/bindReply", {
        requestId: await pending("bind"),
        result: "refuse",
        message: "not now",
      }),
    restore: async () => delete pendingRequest.bind,
  },
  "answer through the Akey's message": {
    run: async (r) =>
      post(r, "/api/msg/v1/device/visit/verify", {
        msgId: await akeyMessage(await pending("visit")),
        result: "refuse",
        message: "not now",
      }),
    restore: async () => delete pendingRequest.visit,
  },

  // ---- Alarms of D ----
  "alarms of D": {
    run: (r) => get(r, `/api/v1/devices/alarms?deviceCode=${D.code}&eid=0`),
  },
  "alarms of D in E": {
    run: (r) => get(r, `/api/v1/devices/alarms?deviceCode=${D.code}&eid=${eid}`),
  },
  "confirm an alarm": {
    run: (r) => as(r, "PUT", "/api/v1/devices/alarms", { id: alarmId, eid: 0 }),
  },
  "confirm an alarm in E": {
    run: (r) => as(r, "PUT", "/api/v1/devices/alarms", { id: alarmId, eid }),
  },
  "confirm all alarms": { run: (r) => post(r, "/api/machine/confirmMacAlarm", D_()) },
  "reset alarms": {
    run: (r) => as(r, "PUT", "/api/v1/devices/imageReset", { deviceCode: D.code, eid: 0 }),
  },
  "reset alarms in E": {
    run: (r) => as(r, "PUT", "/api/v1/devices/imageReset", { deviceCode: D.code, eid }),
  },
  "alarm SMS switch": {
    run: (r) => post(r, "/api/v1/alarm/setMachineSmsFlag", { machineId: D.id, smsFlag: 1 }),
  },
  "alarm SMS switch in E": {
    run: (r) =>
      as(r, "PUT", "/api/msg/v1/ent/alarm/setMachineSmsFlag", {
        eid,
        machineId: D.id,
        smsFlag: 1,
      }),
  },
  "alarm push devices of E show D": {
    run: (r) => get(r, `/api/v1/devices/msgConfig?eid=${eid}`),
    shows: (hwdata) => listHas(D.id, "machineId")(hwdata),
  },
  "alarm push devices of E show ED": {
    run: (r) => get(r, `/api/v1/devices/msgConfig?eid=${eid}`),
    shows: (hwdata) => listHas(ED.id, "machineId")(hwdata),
  },

  // ---- Camera, location and 4G card of D ----
  "camera binding": { run: (r) => get(r, `/api/device/v1/ezviz/account?machineId=${D.id}`) },
  "bind a camera account": {
    run: (r) =>
      post(r, "/api/machine/changeEzvizAccount", { machineId: D.id, ezvizAccountId: cameraId }),
  },
  "release the camera account": {
    run: (r) => post(r, "/api/machine/releaseEzvizAccount", { machineId: D.id }),
    restore: () =>
      post("akey", "/api/machine/changeEzvizAccount", {
        machineId: D.id,
        ezvizAccountId: cameraId,
      }),
  },
  location: { run: (r) => post(r, "/api/machine/machineLocationWay", { machineId: D.id }) },
  "place by hand": {
    run: (r) =>
      post(r, "/api/machine/machineManualLocation", { machineId: D.id, lat: 31.2, lng: 121.5 }),
  },
  "automatic location way": {
    run: (r) => post(r, "/api/machine/machineAutoLocationWay", { machineId: D.id, way: "gps" }),
  },
  "fresh location fix": {
    run: (r) => post(r, "/api/machine/machineAutoLocationAddress", { machineId: D.id }),
  },
  "4G card": { run: (r) => get(r, `/api/v1/iotcard/info?eid=0&machineId=${D.id}`) },
  "4G card in E": { run: (r) => get(r, `/api/v1/iotcard/info?eid=${eid}&machineId=${D.id}`) },
  "4G warnings": {
    run: (r) => post(r, "/api/v1/iotcard/alarm/device/log", { eid: 0, machineId: D.id }),
  },

  "alarm centre of E lists D's alarm": {
    run: (r) => post(r, "/api/v1/devices/alarmList", { eid }),
    shows: (hwdata) => listHas(alarmId, "id")(hwdata),
  },
  "cloud map of E shows D": {
    run: (r) => post(r, "/api/v1/cloudmap/points", { eid }),
    shows: (hwdata) => listHas(D.id)(hwdata),
  },

  // ---- Enterprise E ----
  "enterprise info": { run: (r) => get(r, `/api/entportal/v1/enterprise/info?eid=${eid}`) },
  "enterprise device list": {
    run: (r) => post(r, "/api/enterprises/enterpriseDeviceList", { eid, type: 1 }),
  },
  "maintenance device list": {
    run: (r) => post(r, "/api/enterprises/enterpriseDeviceList", { eid, type: 2 }),
  },
  "device D in E": {
    run: (r) => post(r, "/api/enterprises/machineInfo", { eid, machineId: D.id }),
  },
  "device ED in E": {
    run: (r) => post(r, "/api/enterprises/machineInfo", { eid, machineId: ED.id }),
  },
  "maintenance people of D": {
    run: (r) => post(r, "/api/enterprises/machineMaintenancePersonnel", { eid, machineId: D.id }),
  },
  "maintenance remark of D": {
    run: (r) =>
      post(r, "/api/enterprises/UpdateMaintenanceRemark", {
        eid,
        machineId: D.id,
        remark: "serviced",
      }),
  },
  "maintenance team": {
    run: (r) => post(r, "/eapi/ent/c/manager/maintain/getteammember", { eid }),
  },
  "visit URL of D in E": {
    run: async (r) => {
      await online(D);
      return post(r, "/api/enterprises/validVisitUrl", { eid, machineId: D.id });
    },
  },
  "visit URL of ED in E": {
    run: async (r) => {
      await online(ED);
      return post(r, "/api/enterprises/validVisitUrl", { eid, machineId: ED.id });
    },
  },
  "connect check of ED": {
    run: (r) => post(r, "/api/v1/audit/checkCloudServiceState", { machineID: ED.id }),
  },
  // The outsider's own tenant (E2, P2) is no way to reach D.
  "E2 (outsider's): device D": {
    run: (r) => post(r, "/api/enterprises/machineInfo", { eid: eid2, machineId: D.id }),
  },
  "E2: visit URL of D": {
    run: async (r) => {
      await online(D);
      return post(r, "/api/enterprises/validVisitUrl", { eid: eid2, machineId: D.id });
    },
  },
  "E2: alarms of D": {
    run: (r) => get(r, `/api/v1/devices/alarms?deviceCode=${D.code}&eid=${eid2}`),
  },
  "E2: confirm D's alarm": {
    run: (r) => as(r, "PUT", "/api/v1/devices/alarms", { id: alarmId, eid: eid2 }),
  },
  "E2: reset D's alarms": {
    run: (r) => as(r, "PUT", "/api/v1/devices/imageReset", { deviceCode: D.code, eid: eid2 }),
  },
  "E2: 4G card of D": {
    run: (r) => get(r, `/api/v1/iotcard/info?eid=${eid2}&machineId=${D.id}`),
  },
  "E2: alarm SMS switch of D": {
    run: (r) =>
      as(r, "PUT", "/api/msg/v1/ent/alarm/setMachineSmsFlag", {
        eid: eid2,
        machineId: D.id,
        smsFlag: 1,
      }),
  },
  "E2: maintenance remark of D": {
    run: (r) =>
      post(r, "/api/enterprises/UpdateMaintenanceRemark", {
        eid: eid2,
        machineId: D.id,
        remark: "ours now",
      }),
  },
  "enterprise members": { run: (r) => get(r, `/api/enterprises/v1/admin/members?eid=${eid}`) },
  "add an enterprise member": {
    run: (r) =>
      post(r, "/api/enterprises/v1/admin/members", {
        eid,
        account: email.newcomer,
        kind: "member",
      }),
    restore: () => dropMember(),
  },
  "remove an enterprise member": {
    before: () => addMember(),
    run: (r) =>
      as(r, "DELETE", "/api/enterprises/v1/admin/members", {
        eid,
        userId: uid.newcomer,
        kind: "member",
      }),
    restore: () => addMember(),
    after: () => dropMember(),
  },
  "create an enterprise group": {
    run: (r) => post(r, "/api/enterprises/v1/admin/groups", { eid, name: "Line 1" }),
    restore: (_r, res) =>
      byOperator("DELETE", "/api/enterprises/v1/admin/groups", { eid, id: res.body.hwdata.id }),
  },
  "assign a device to E (operator's)": {
    run: (r) =>
      post(r, "/api/enterprises/v1/admin/devices", { eid, machineCode: DP2.code, type: 2 }),
    restore: () =>
      byOperator("DELETE", "/api/enterprises/v1/admin/devices", {
        eid,
        machineId: DP2.id,
        type: 2,
      }),
  },
  "enterprise SMS settings": {
    run: (r) => as(r, "PUT", "/api/msg/v1/ent/userMessage", { eid, smsFlag: 1 }),
  },

  // ---- Project P ----
  project: { run: (r) => post(r, "/api/project/get", { id: projectId }) },
  "project users": { run: (r) => post(r, "/api/project/getUser", { id: projectId }) },
  "project machines": { run: (r) => post(r, "/api/project/getMachine", { id: projectId }) },
  "project report server": { run: (r) => post(r, "/api/project/getServer", { id: projectId }) },
  "edit the project": {
    run: (r) => post(r, "/api/project/edit", { id: projectId, name: "Bottling" }),
  },
  "reset the project key": { run: (r) => post(r, "/api/project/resetKey", { id: projectId }) },
  "add a project user": {
    run: (r) => post(r, "/api/project/addUser", { id: projectId, account: email.newcomer }),
    restore: () => leaveProject("newcomer"),
  },
  "remove a project user": {
    before: () => joinProject("newcomer"),
    run: (r) => post(r, "/api/project/delUser", { id: projectId, delUserId: uid.newcomer }),
    restore: () => joinProject("newcomer"),
    after: () => leaveProject("newcomer"),
  },
  "leave the project": {
    run: (r) => post(r, "/api/project/delUser", { id: projectId, delUserId: uid[r] }),
    restore: (r) => joinProject(r),
  },
  "add a machine to the project": {
    run: (r) => post(r, "/api/project/addMachine", { id: projectId, machineId: DP2.id }),
    restore: () => post("owner", "/api/project/delMachine", { id: projectId, machineId: DP2.id }),
  },
  "remove a machine from the project": {
    run: (r) => post(r, "/api/project/delMachine", { id: projectId, machineId: DP.id }),
    restore: () => post("owner", "/api/project/addMachine", { id: projectId, machineId: DP.id }),
  },
  "project visit URL": {
    run: async (r) => {
      await online(DP);
      return post(r, "/eapi/web/c/machine/getVisitUrl", { id: projectId, machineId: DP.id });
    },
  },
  "transfer the project": {
    run: (r) => post(r, "/api/project/transfer", { id: projectId, transferUser: uid.puser }),
    restore: () =>
      post("puser", "/api/project/transfer", { id: projectId, transferUser: uid.owner }),
  },
  "transfer project to a no-project user": {
    before: () => joinProject("newcomer"),
    run: (r) => post(r, "/api/project/transfer", { id: projectId, transferUser: uid.newcomer }),
    restore: () =>
      post("newcomer", "/api/project/transfer", { id: projectId, transferUser: uid.owner }),
    after: () => leaveProject("newcomer"),
  },
  // Cannot be undone: the last project row.
  "delete the project": { run: (r) => post(r, "/api/project/del", { id: projectId }) },

  "P2 (outsider's): add D": {
    run: (r) => post(r, "/api/project/addMachine", { id: project2Id, machineId: D.id }),
  },
  "P2: visit URL of D": {
    run: async (r) => {
      await online(D);
      return post(r, "/eapi/web/c/machine/getVisitUrl", { id: project2Id, machineId: D.id });
    },
  },

  // ---- A message of the Akey ----
  "read the Akey's message": {
    run: async (r) => get(r, `/api/msg/v1/detail/${await akeyMessage()}`),
  },
  "mark the Akey's message read": {
    run: async (r) => as(r, "PUT", "/api/msg/v1/read", { id: await akeyMessage(), box: "inbox" }),
  },
  "delete the Akey's message": {
    run: async (r) =>
      as(r, "DELETE", "/api/msg/v1/clear", { id: await akeyMessage(), box: "inbox" }),
  },

  // ---- Last: handing D over (undone) and deleting it (the Akey's delete unbinds everyone) ----
  "transfer the device": {
    run: (r) => post(r, "/api/machine/transfer", { ...D_(), account: email.newcomer }),
    restore: async () => {
      ok(
        await post("newcomer", "/api/machine/transfer", { ...D_(), account: email.akey }),
        "transfer back",
      );
      ok(
        await post("akey", "/api/admin/member/remove", { ...D_(), id: await linkOf("newcomer") }),
        "remove the heir",
      );
    },
  },
  "delete the device": {
    run: (r) => post(r, "/api/machine/del", { delMachineID: D.id }),
    last: "akey",
  },
};

const foreverAgain = () =>
  as("akey", "PUT", "/api/device/v1/visit/time", {
    ...D_(),
    visitTimeId: visitorGrant,
    visitTime: -1,
  });
const addMember = () =>
  byOperator("POST", "/api/enterprises/v1/admin/members", {
    eid,
    account: email.newcomer,
    kind: "member",
  });
const dropMember = () =>
  byOperator("DELETE", "/api/enterprises/v1/admin/members", {
    eid,
    userId: uid.newcomer,
    kind: "member",
  });
const joinProject = (who: Person) =>
  post("owner", "/api/project/addUser", { id: projectId, account: email[who] });
const leaveProject = (who: Person) =>
  post("owner", "/api/project/delUser", { id: projectId, delUserId: uid[who] });

// ---- The table, parsed ----

type Cell = "ok" | "-" | keyof typeof CODES;
const lines = TABLE.trim().split("\n");
const header = lines[0].split("|")[1].trim().split(/\s+/);
const rows = lines.slice(1).map((line) => {
  const [name, cells] = line.split("|").map((s) => s.trim());
  return { name, cells: cells.split(/\s+/) as Cell[] };
});

const isRes = (value: unknown): value is Res =>
  typeof value === "object" && value !== null && "body" in value && "status" in value;

function verdict(expected: Cell, res: Res, call: Call): string | undefined {
  const { status, body } = res;
  const got = `HTTP ${status} hwcode ${JSON.stringify(body.hwcode)}${body.hwdata?.reason ? ` ${body.hwdata.reason}` : ""}`;
  if (status >= 500) return `a server error (${got})`;
  if (expected === "ok" || expected === "-") {
    if (body.hwcode !== 0) return `refused (${got} ${body.msg})`;
    if (!call.shows) return expected === "-" ? "a row without a list check" : undefined;
    if (call.shows(body.hwdata) !== (expected === "ok"))
      return expected === "ok" ? "allowed, but the subject is missing" : "shows the subject";
    return undefined;
  }
  const entry = HW[CODES[expected]];
  if (body.hwcode === 0) return `allowed (hwcode 0), expected ${expected} ${entry.code}`;
  if (String(body.hwcode) !== String(entry.code) || body.hwdata?.reason !== entry.reason)
    return `${got}, expected ${expected} ${entry.code}${entry.reason ? ` ${entry.reason}` : ""}`;
  return undefined;
}

// ---- The world ----

async function person(who: Person): Promise<void> {
  email[who] = `${who}@authz.example.com`;
  token[who] = await h.signUp(email[who], "secret123", who);
  uid[who] = (await post(who, "/api/user/selectInfo")).body.hwdata.id;
}

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  operator = await h.login("operator@keyway.local", "operator123");
  for (const who of [...ROLES, "bkey2", "spare", "newcomer", "requester"] as Person[])
    await person(who);

  // Devices: D (the akey's), DP and DP2 (the project owner's), ED (the enterprise's).
  const issued = await h.provision(operator, 4);
  for (const [target, device, owner] of [
    [D, issued[0], "akey"],
    [DP, issued[1], "owner"],
    [DP2, issued[2], "owner"],
  ] as const) {
    Object.assign(target, await h.addDevice(token[owner], device, "Press line"));
    secrets.set(target.id, device.deviceSecret);
  }

  // On D: the visitor (forever), the lapsed visitor (cleared), the ordinary users.
  for (const [who, kind] of [
    ["visitor", "visit"],
    ["lapsed", "visit"],
    ["user", "bind"],
    ["spare", "bind"],
  ] as const) {
    const asked = ok(
      await post(who, `/api/v1/audit/add${kind === "visit" ? "Visit" : "Bind"}`, {
        ...D_(),
        message: "please",
      }),
      `${who} asks`,
    );
    ok(
      await post("akey", `/api/v1/audit/${kind}Reply`, {
        requestId: asked.body.hwdata.id,
        result: "agree",
        message: "welcome",
        ...(kind === "visit" && { visitTime: -1 }),
      }),
      `${who} let in`,
    );
  }
  const grants = ok(await post("akey", "/api/admin/select", { ...D_(), infoType: 3 }), "grants");
  const grantOf = (who: Person) =>
    (grants.body.hwdata.list as { visitTimeId: number; user_id: number }[]).find(
      (g) => g.user_id === uid[who],
    )?.visitTimeId ?? 0;
  visitorGrant = grantOf("visitor");
  ok(
    await post("akey", "/api/admin/zeroVisitTime", { ...D_(), visitAlidTimeID: grantOf("lapsed") }),
    "lapse",
  );
  for (const who of ["bkey", "bkey2"] as const)
    ok(await post("akey", "/api/admin/push", { ...D_(), account: email[who] }), `${who}`);
  ok(await post("akey", "/api/admin/blacklist/add", { ...D_(), userId: uid.black }), "black");

  // Enterprise E: its three kinds of people, D maintained, ED its own.
  eid = ok(
    await byOperator("POST", "/api/operator/v1/enterprises", { name: "Acme", enableProject: 1 }),
    "enterprise",
  ).body.hwdata.eid;
  for (const [who, kind, isAdmin] of [
    ["member", "member", 0],
    ["maint", "maintenance", 0],
    ["admin", "member", 1],
  ] as const)
    ok(
      await byOperator("POST", "/api/enterprises/v1/admin/members", {
        eid,
        account: email[who],
        kind,
        isAdmin,
      }),
      `${who} joins E`,
    );
  for (const [code, type] of [
    [D.code, 2],
    [issued[3].machineCode, 1],
  ] as const)
    ok(
      await byOperator("POST", "/api/enterprises/v1/admin/devices", {
        eid,
        machineCode: code,
        type,
      }),
      "assign",
    );
  ED.code = issued[3].machineCode;
  const [edRow] = await h.db
    .select({ id: devices.id })
    .from(devices)
    .where(eq(devices.code, ED.code));
  ED.id = edRow.id;
  secrets.set(ED.id, issued[3].deviceSecret);

  // Project P of the owner (the per-user project switch on), with puser and DP.
  // puser has the switch too: the project can be handed to them and back.
  for (const who of ["owner", "puser"] as const)
    await h.db.update(users).set({ enableProject: true }).where(eq(users.id, uid[who]));
  projectId = ok(
    await post("owner", "/api/project/add", { name: "Line 3", enable_get_visit_url: 1 }),
    "project",
  ).body.hwdata.id;
  ok(await joinProject("puser"), "puser joins");
  ok(await post("owner", "/api/project/addMachine", { id: projectId, machineId: DP.id }), "DP");

  // The outsider's own tenant: admin of enterprise E2, owner of project P2.
  eid2 = ok(
    await byOperator("POST", "/api/operator/v1/enterprises", { name: "Rival", enableProject: 1 }),
    "E2",
  ).body.hwdata.eid;
  ok(
    await byOperator("POST", "/api/enterprises/v1/admin/members", {
      eid: eid2,
      account: email.outsider,
      kind: "member",
      isAdmin: 1,
    }),
    "outsider runs E2",
  );
  await h.db.update(users).set({ enableProject: true }).where(eq(users.id, uid.outsider));
  project2Id = ok(
    await post("outsider", "/api/project/add", { name: "Rival line", enable_get_visit_url: 1 }),
    "P2",
  ).body.hwdata.id;

  // D's alarm, 4G card, camera account and a visit that ran.
  const now = h.clock.now();
  [{ id: alarmId }] = await h.db
    .insert(alarms)
    .values({
      deviceId: D.id,
      uid: "authz",
      type: "raise",
      content: "Tank high",
      time: now,
      createdAt: now,
    })
    .returning({ id: alarms.id });
  await h.db.update(devices).set({ iccid: "89860400000000000101" }).where(eq(devices.id, D.id));
  [{ id: cameraId }] = await h.db
    .insert(cameraAccounts)
    .values({
      userId: uid.akey,
      name: "Yard",
      appKey: "authz-key",
      secretSealed: encryptSecret(testConfig().SECRET_KEY, "authz-secret"),
      createdAt: now,
    })
    .returning({ id: cameraAccounts.id });
  ok(
    await post("akey", "/api/machine/changeEzvizAccount", {
      machineId: D.id,
      ezvizAccountId: cameraId,
    }),
    "camera",
  );
  startedVisit = newVisitId();
  await h.db.insert(visits).values({
    id: startedVisit,
    userId: uid.user,
    terminalId: 0,
    deviceId: D.id,
    target: "127.0.0.1:80",
    createdAt: now,
    urlExpiresAt: now,
    startedAt: now,
  });
});
afterAll(async () => {
  await h?.close();
});

describe("authorization table", () => {
  it("names every role and every call once", () => {
    expect(header).toEqual([...ROLES]);
    expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(CALLS).sort());
    for (const row of rows) expect(row.cells, row.name).toHaveLength(ROLES.length);
  });

  for (const row of rows) {
    it(row.name, async () => {
      const call = CALLS[row.name];
      const expected = new Map(ROLES.map((role, i) => [role, row.cells[i]]));
      // Refusals first, so that they meet the state every allowed cell restores; then the
      // allowed cells, the row's `last` at the very end.
      const order = [
        ...ROLES.filter((r) => expected.get(r) !== "ok" && expected.get(r) !== "-"),
        ...ROLES.filter(
          (r) => (expected.get(r) === "ok" || expected.get(r) === "-") && r !== call.last,
        ),
        ...(call.last ? [call.last] : []),
      ];
      const before = await call.before?.();
      if (isRes(before)) ok(before, `before ${row.name}`);
      const wrong: string[] = [];
      for (const role of order) {
        const res = await call.run(role);
        const problem = verdict(expected.get(role) as Cell, res, call);
        if (problem) wrong.push(`${role}: ${problem}`);
        // Undone at once, so that the next cell meets the world as the table describes it.
        const undone = res.body.hwcode === 0 ? await call.restore?.(role, res) : undefined;
        if (isRes(undone) && undone.body.hwcode !== 0)
          wrong.push(`${role}: not undone (${JSON.stringify(undone.body)})`);
      }
      const after = await call.after?.();
      if (isRes(after) && after.body.hwcode !== 0)
        wrong.push(`after the row: ${JSON.stringify(after.body)}`);
      expect(wrong).toEqual([]);
    });
  }
});
