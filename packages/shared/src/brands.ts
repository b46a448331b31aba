import type { Lang } from "./lang.ts";

/**
 * Operator brands (SPEC §1, §3 "Brand configuration"): the neutral default plus nine
 * variants, chosen from the page's host name. The web shell and the server's e-mail subject
 * both read this table.
 */
export interface BrandWording {
  name: string;
  title: string;
  footer: string;
  emailSubject: string;
}

export interface Brand {
  id: string;
  /** Exact host names; a host whose first label equals the id also matches. */
  hosts: readonly string[];
  color: string;
  initials: string;
  website: string;
  /** Where the brand's devices connect (SPEC "machineURL"; the port is DEVICE_MACHINE_PORT). */
  machineUrl: string;
  supportEmail: string;
  app: { android: string; ios: string };
  zh: BrandWording;
  en: BrandWording;
}

const brand = (
  id: string,
  color: string,
  initials: string,
  zhName: string,
  enName: string,
  domain: string,
): Brand => ({
  id,
  hosts: [`cloud.${domain}`, `www.${domain}`],
  color,
  initials,
  website: `https://www.${domain}`,
  machineUrl: `device.${domain}`,
  supportEmail: `support@${domain}`,
  app: {
    android: `https://www.${domain}/download/android`,
    ios: `https://apps.apple.com/app/${id}-remote`,
  },
  zh: {
    name: zhName,
    title: `${zhName} · 工业设备远程访问`,
    footer: `© ${zhName} 版权所有`,
    emailSubject: `【${zhName}】验证码`,
  },
  en: {
    name: enName,
    title: `${enName} · Remote access for industrial devices`,
    footer: `© ${enName}. All rights reserved.`,
    emailSubject: `[${enName}] Your verification code`,
  },
});

export const DEFAULT_BRAND = brand(
  "keyway",
  "#1677ff",
  "K",
  "Keyway 云",
  "Keyway Cloud",
  "keyway.io",
);

export const BRANDS: readonly Brand[] = [
  DEFAULT_BRAND,
  brand("vantage", "#0f766e", "V", "万泰云", "Vantage Cloud", "vantage-iot.com"),
  brand("ironbridge", "#b45309", "IB", "铁桥互联", "Ironbridge Connect", "ironbridge.cn"),
  brand("lumen", "#7c3aed", "L", "流明 HMI 云", "Lumen HMI Cloud", "lumenhmi.com"),
  brand("northgate", "#1d4ed8", "N", "北门工控云", "Northgate Industrial", "northgate-ic.com"),
  brand("orchid", "#be185d", "O", "兰芯远程", "Orchid Remote", "orchid-remote.com"),
  brand("tidewater", "#0369a1", "T", "潮汐物联", "Tidewater IoT", "tidewater-iot.com"),
  brand("summit", "#15803d", "S", "峰顶智控", "Summit Control", "summitctl.com"),
  brand("redwood", "#b91c1c", "R", "红杉云维", "Redwood Care", "redwood-care.com"),
  brand("aurora", "#4338ca", "A", "极光工业", "Aurora Industrial", "aurora-ind.com"),
];

/** Unknown hosts get the neutral default (SPEC §1). */
export function brandForHost(host: string | undefined | null): Brand {
  const hostname = (host ?? "").toLowerCase().replace(/:\d+$/, "");
  const firstLabel = hostname.split(".")[0];
  return (
    BRANDS.find((b) => b.hosts.includes(hostname)) ??
    BRANDS.find((b) => b.id === firstLabel && hostname.includes(".")) ??
    DEFAULT_BRAND
  );
}

export function brandById(id: string | undefined | null): Brand | undefined {
  return BRANDS.find((b) => b.id === id);
}

export function brandWording(b: Brand, lang: Lang): BrandWording {
  return lang === "en" ? b.en : b.zh;
}

/** The brand's logo as an SVG data URL (a coloured tile with its initials). */
export function brandLogo(b: Brand): string {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${b.color}"/><text x="32" y="42" font-family="Arial,Helvetica,sans-serif" font-size="${b.initials.length > 1 ? 24 : 30}" font-weight="700" fill="#fff" text-anchor="middle">${b.initials}</text></svg>`;
  return `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
}

/**
 * The desktop pages drawn in the login shell (the brand side beside a card). The server paints
 * the brand's header into their index.html, so that something of the page shows before any
 * script has run; the web app routes them (apps/web/src/shellPages.ts, checked against this).
 */
export const LOGIN_SHELL_PATHS = [
  "/login",
  "/register",
  "/registerByEmail",
  "/forgetPwd",
  "/loginTimeout",
  "/backManage",
  "/administrateCenter",
  "/scadaRegister",
  "/userInfo",
  "/modifyEmail",
  "/modifyPhone",
  "/deleteAccount",
] as const;
export type LoginShellPath = (typeof LOGIN_SHELL_PATHS)[number];
