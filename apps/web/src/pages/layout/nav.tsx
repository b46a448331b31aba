import {
  AlertOutlined,
  ApartmentOutlined,
  AppstoreOutlined,
  BarChartOutlined,
  CameraOutlined,
  ClusterOutlined,
  CreditCardOutlined,
  EnvironmentOutlined,
  FolderOpenOutlined,
  MessageOutlined,
  SafetyCertificateOutlined,
  ToolOutlined,
} from "@ant-design/icons";
import type { UserInfo } from "@keyway/shared";
import type { ReactNode } from "react";
import type { DeviceType, EnterpriseInfo } from "../../store/app.ts";

/**
 * The side navigation of SPEC §2 as data. An entry is shown only when its page exists
 * (its path is among the main-layout routes), in its context, and when its flag allows it.
 */
export type NavLabelKey =
  | "nav.deviceList"
  | "nav.safety"
  | "nav.ezviz"
  | "nav.enterpriseDevices"
  | "nav.maintenanceDevices"
  | "nav.enterpriseProjects"
  | "nav.maintenanceProjects"
  | "nav.cloudMap"
  | "nav.dataCenter"
  | "nav.iotCards"
  | "nav.alarmCenter"
  | "nav.msgCenter";

export interface NavEntry {
  key: string;
  path: string;
  /** Query the entry adds (device / project type, list type). */
  search?: string;
  label: NavLabelKey;
  icon: ReactNode;
  context: "personal" | "enterprise" | "both";
  /** Device type stored on choosing the entry; "context" = 0 personal / 1 enterprise. */
  deviceType: DeviceType | "context";
  when?: (env: NavEnv) => boolean;
  /** The message entry carries the unread badge. */
  badge?: "unread";
}

export interface NavEnv {
  user: UserInfo | null;
  context: EnterpriseInfo;
}

export const NAV_CATALOGUE: readonly NavEntry[] = [
  {
    key: "index",
    path: "/index",
    search: "?listType=list",
    label: "nav.deviceList",
    icon: <AppstoreOutlined />,
    context: "personal",
    deviceType: 0,
  },
  {
    key: "safety",
    path: "/safety",
    label: "nav.safety",
    icon: <SafetyCertificateOutlined />,
    context: "personal",
    deviceType: 0,
  },
  {
    key: "ezviz",
    path: "/ezviz",
    label: "nav.ezviz",
    icon: <CameraOutlined />,
    context: "personal",
    deviceType: 0,
  },
  {
    key: "device-1",
    path: "/device",
    search: "?type=1",
    label: "nav.enterpriseDevices",
    icon: <ClusterOutlined />,
    context: "enterprise",
    deviceType: 1,
  },
  {
    key: "device-2",
    path: "/device",
    search: "?type=2",
    label: "nav.maintenanceDevices",
    icon: <ToolOutlined />,
    context: "enterprise",
    deviceType: 2,
  },
  {
    key: "project-1",
    path: "/project",
    search: "?type=1",
    label: "nav.enterpriseProjects",
    icon: <FolderOpenOutlined />,
    context: "enterprise",
    deviceType: 1,
    when: ({ context }) => context.enableProject === 1,
  },
  {
    key: "project-2",
    path: "/project",
    search: "?type=2",
    label: "nav.maintenanceProjects",
    icon: <ApartmentOutlined />,
    context: "enterprise",
    deviceType: 2,
    when: ({ context }) => context.enableProject === 1,
  },
  {
    key: "cloudmap",
    path: "/cloudmap",
    label: "nav.cloudMap",
    icon: <EnvironmentOutlined />,
    context: "both",
    deviceType: "context",
    when: ({ user }) => user?.hideMap !== 1,
  },
  {
    key: "dataCenter",
    path: "/dataCenter",
    label: "nav.dataCenter",
    icon: <BarChartOutlined />,
    context: "both",
    deviceType: "context",
  },
  {
    key: "iotCard",
    path: "/iotCard",
    label: "nav.iotCards",
    icon: <CreditCardOutlined />,
    context: "both",
    deviceType: "context",
  },
  {
    key: "alarmCenter",
    path: "/alarmCenter",
    label: "nav.alarmCenter",
    icon: <AlertOutlined />,
    context: "both",
    deviceType: "context",
  },
  {
    key: "msgCenter",
    path: "/msgCenter",
    label: "nav.msgCenter",
    icon: <MessageOutlined />,
    context: "both",
    deviceType: "context",
    badge: "unread",
  },
];

/** The entries to show, given the pages that exist and the user's context and flags. */
export function visibleEntries(pages: ReadonlySet<string>, env: NavEnv): NavEntry[] {
  const kind = env.context.eid === 0 ? "personal" : "enterprise";
  return NAV_CATALOGUE.filter(
    (entry) =>
      pages.has(entry.path) &&
      (entry.context === "both" || entry.context === kind) &&
      (entry.when?.(env) ?? true),
  );
}

export function entryDeviceType(entry: NavEntry, context: EnterpriseInfo): DeviceType {
  if (entry.deviceType !== "context") return entry.deviceType;
  return context.eid === 0 ? 0 : 1;
}

/** The entry matching the current location (path plus its type query, if any). */
export function activeEntryKey(
  entries: readonly NavEntry[],
  pathname: string,
  search: string,
): string | undefined {
  const params = new URLSearchParams(search);
  const candidates = entries.filter((e) => e.path === pathname);
  const exact = candidates.find((e) => {
    if (!e.search) return true;
    const wanted = new URLSearchParams(e.search);
    return [...wanted].every(([k, v]) => params.get(k) === v);
  });
  return (exact ?? candidates[0])?.key;
}
