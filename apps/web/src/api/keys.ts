import type { MachineSelectQuery } from "./devices.ts";
import type { EnterpriseDeviceQuery, EnterpriseDeviceType } from "./enterprises.ts";
import type { MessagePageQuery } from "./messages.ts";
import type { PageQuery } from "./operator.ts";
import type { ProjectListQuery } from "./projects.ts";

/** react-query keys in one place. */
export const queryKeys = {
  userInfo: ["user", "info"] as const,
  terminals: (page: number) => ["user", "terminals", page] as const,
  terminalsAll: ["user", "terminals"] as const,
  outbox: (page: number, pageSize: number) => ["operator", "outbox", page, pageSize] as const,

  /** Everything about personal devices (lists, details, groups). */
  devicesAll: ["devices"] as const,
  devices: (query: MachineSelectQuery) => ["devices", "list", query] as const,
  deviceDetail: (id: number) => ["devices", "detail", id] as const,
  deviceRole: (id: number) => ["devices", "role", id] as const,
  groups: ["devices", "groups"] as const,
  /** Online state of all the caller's devices (polled by the list and the detail). */
  deviceStates: ["devices", "states"] as const,
  deviceAlarms: (code: string, page: number, eid = 0) =>
    ["devices", "alarms", code, eid, page] as const,
  deviceAlarmsAll: (code: string) => ["devices", "alarms", code] as const,
  /** The alarm centre (lists and statistics of every context). */
  alarmsAll: ["alarms"] as const,
  alarmList: (filters: object, page: number) => ["alarms", "list", filters, page] as const,
  alarmKanban: (filters: object) => ["alarms", "kanban", filters] as const,
  deviceLocation: (id: number) => ["devices", "location", id] as const,
  /** A device's visit log (personal or enterprise device alike). */
  deviceVisitsAll: (id: number) => ["visits", id] as const,
  deviceVisits: (id: number, page: number) => ["visits", id, page] as const,
  /** What visitors did on a device (one visit's, or all with visitId ""). */
  visitActivity: (id: number, visitId: string, page: number) =>
    ["visits", id, "activity", visitId, page] as const,
  /** On-site consent and view-only WebSockets of a device. */
  remoteSettings: (id: number) => ["visits", id, "settings"] as const,
  icons: ["icons"] as const,

  userEnterprises: ["enterprises", "mine"] as const,
  /** Whether the user may create an enterprise (under userEnterprises: refreshed with it). */
  enterpriseCreation: ["enterprises", "mine", "creation"] as const,
  enterprisePermission: (eid: number) => ["enterprise", eid, "permission"] as const,
  brandSettings: ["operator", "brandSettings"] as const,
  enterpriseAll: (eid: number) => ["enterprise", eid] as const,
  enterpriseDevices: (query: EnterpriseDeviceQuery) =>
    ["enterprise", query.eid, "devices", query] as const,
  enterpriseGroups: (eid: number) => ["enterprise", eid, "groups"] as const,
  enterpriseStates: (query: EnterpriseDeviceQuery) =>
    ["enterprise", query.eid, "states", query] as const,
  enterpriseMachine: (eid: number, machineId: number) =>
    ["enterprise", eid, "machine", machineId] as const,
  enterprisePersonnel: (eid: number, machineId: number, kind: "member" | "maintenance") =>
    ["enterprise", eid, "machine", machineId, "personnel", kind] as const,
  enterpriseLogo: (eid: number) => ["enterprise", eid, "logo"] as const,

  adminMembers: (eid: number) => ["admin", eid, "members"] as const,
  adminDevices: (eid: number, type: EnterpriseDeviceType) =>
    ["admin", eid, "devices", type] as const,
  adminAll: (eid: number) => ["admin", eid] as const,

  /** Everything of the message centre (pushes invalidate it all). */
  messagesAll: ["messages"] as const,
  messagePages: ["messages", "page"] as const,
  messages: (query: MessagePageQuery) => ["messages", "page", query] as const,
  message: (id: number) => ["messages", "detail", id] as const,
  totalUnread: ["messages", "unread"] as const,
  auditProcess: (query: { requestId?: number; msgId?: number }) =>
    ["messages", "audit", query] as const,

  /** A machine code looked up (scanCodeCheck): the device and the caller's standing on it. */
  scanCode: (code: string) => ["access", "scanCode", code] as const,

  /** A device's authority centre. */
  authorityAll: (machineId: number) => ["authority", machineId] as const,
  authority: (machineId: number, part: "members" | "valid" | "black") =>
    ["authority", machineId, part] as const,
  whiteList: (machineId: number, page: number) => ["authority", machineId, "white", page] as const,

  registry: (query: PageQuery) => ["operator", "registry", query] as const,
  registryAll: ["operator", "registry"] as const,
  operatorEnterprises: (query: PageQuery) => ["operator", "enterprises", query] as const,
  operatorEnterprisesAll: ["operator", "enterprises"] as const,

  /** SMS / e-mail alarm pushes of a context (eid 0 personal): config, stock, devices, records. */
  alarmPushAll: (eid: number) => ["alarmPush", eid] as const,
  alarmPush: (eid: number, part: string, query?: object) =>
    query === undefined
      ? (["alarmPush", eid, part] as const)
      : (["alarmPush", eid, part, query] as const),
  operatorSales: (eid: number) => ["operator", "smsSales", eid] as const,

  /** Projects: an enterprise's lists, and one project's parts. */
  projectsAll: ["projects"] as const,
  projects: (query: ProjectListQuery) => ["projects", "list", query] as const,
  project: (id: number) => ["projects", "one", id] as const,
  projectPart: (id: number, part: "users" | "machines" | "server") =>
    ["projects", "one", id, part] as const,
};
