/** Route paths of SPEC §2 that exist in this app. */
export const PATHS = {
  login: "/login",
  register: "/register",
  registerByEmail: "/registerByEmail",
  forgetPwd: "/forgetPwd",
  loginTimeout: "/loginTimeout",
  backManage: "/backManage",
  administrateCenter: "/administrateCenter",
  safety: "/safety",
  /** Camera cloud accounts (EZVIZ) of the personal context. */
  ezviz: "/ezviz",
  /** Message centre: ?box=inbox|outbox. */
  msgCenter: "/msgCenter",
  /** Devices; the personal list uses listType=list. */
  index: "/index",
  /** Enterprise (type=1) and maintenance (type=2) devices of the current enterprise. */
  device: "/device",
  /** Data center: SMS / e-mail alarm push configuration, stock and records (?tab=). */
  dataCenter: "/dataCenter",
  /** Alarm center: alarms of every device of the current context, with statistics. */
  alarmCenter: "/alarmCenter",
  /** Enterprise (type=1) and maintenance (type=2) projects of the current enterprise. */
  project: "/project",
  /** 4G IoT cards of the current context; one card at /iotCard/<ICCID>. */
  iotCard: "/iotCard",
  /** Cloud map: every device of the current context on a map, with a list beside it. */
  cloudMap: "/cloudmap",
  /** The cloud map full screen: no navigation, no header. */
  mapCanvas: "/mapcanvas",
  /** SCADA registration (public). */
  scadaRegister: "/scadaRegister",
  /** The brand's apps: versions, links and QR codes (public). */
  appDownload: "/appDownload",
  /** Entry: the device list when signed in, else /login. */
  main: "/main",
  /** Personal information (login shell; signed-in users only, others via /login and back). */
  userInfo: "/userInfo",
  /** Standalone account changes a phone app's web view opens (login shell, signed in). */
  modifyEmail: "/modifyEmail",
  modifyPhone: "/modifyPhone",
  deleteAccount: "/deleteAccount",
  /** Change the password (main layout). */
  recoverPwd: "/recoverPwd",
  /** A device's screen (VNC) in the browser, full window: /screen/<machine id>. */
  screen: "/screen",
} as const;

/** The mobile route (SPEC §2 /mobile) and its screens; phones are sent here (lib/deviceKind.ts). */
export const MOBILE = {
  root: "/mobile",
  login: "/mobile/login",
  /** One device: /mobile/device/<machine id>. */
  device: "/mobile/device",
  messages: "/mobile/messages",
  alarms: "/mobile/alarms",
  me: "/mobile/me",
  /** What the desktop's login QR opens: confirm or cancel that login (?token=). */
  qrLogin: "/mobile/qrLogin",
  /** One 4G card on the phone: /mobile/iotCard/<ICCID> (a scanned card QR lands here). */
  iotCard: "/mobile/iotCard",
} as const;

/** Pages a phone keeps instead of being sent to the mobile route (SPEC §1). */
export const MOBILE_REDIRECT_EXEMPT: ReadonlySet<string> = new Set([
  PATHS.scadaRegister,
  // Public one-column pages the phone has no screen of its own for: they work at phone
  // width and lead back to the login, which is the mobile one (docs/architecture/web.md#phones-tvs-and-the-login-shell).
  PATHS.register,
  PATHS.registerByEmail,
  PATHS.forgetPwd,
  PATHS.appDownload,
  // Opened inside the phone app's web view: the page itself, not the mobile web UI.
  PATHS.modifyEmail,
  PATHS.modifyPhone,
  PATHS.deleteAccount,
]);

/** One 4G card's page (also what its QR code holds). */
export function iotCardPath(iccid: string): string {
  return `${PATHS.iotCard}/${encodeURIComponent(iccid)}`;
}

/**
 * The screen viewer of a device: `?eid=` for an enterprise device, `?project=` for a project's
 * machine (the visit URL call each needs), nothing for a personal device.
 */
export function screenPath(machineId: number, scope: { eid?: number; projectId?: number } = {}) {
  const query = new URLSearchParams();
  if (scope.projectId !== undefined) query.set("project", String(scope.projectId));
  else if (scope.eid !== undefined && scope.eid > 0) query.set("eid", String(scope.eid));
  const search = query.toString();
  return `${PATHS.screen}/${machineId}${search ? `?${search}` : ""}`;
}

/** The personal device list (SPEC §2: /index with listType=list). */
export const PERSONAL_DEVICES_ROUTE = `${PATHS.index}?listType=list`;

/** The `type` query of /device: 2 maintenance devices, anything else 1 enterprise devices. */
export function parseDeviceType(value: string | null): 1 | 2 {
  return value === "2" ? 2 : 1;
}

export function enterpriseDevicePath(type: 1 | 2): string {
  return `${PATHS.device}?type=${type}`;
}

/**
 * Where a user lands after logging in: the personal device list. (In an enterprise context
 * the list page forwards to that enterprise's device list.)
 */
export const LANDING_ROUTE: string = PERSONAL_DEVICES_ROUTE;
