import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { WEB_DIST } from "./paths.ts";

/**
 * The only place the environment is read (ARCHITECTURE "Configuration"). Every default gives
 * the embedded single-machine set-up; a bad value stops the boot with a clear message.
 */
/** proxy-addr's names for address ranges, as Fastify's trustProxy takes them. */
const PROXY_RANGE_NAMES = ["loopback", "linklocal", "uniquelocal"];

function isProxyAddress(value: string): boolean {
  if (PROXY_RANGE_NAMES.includes(value)) return true;
  const [address, bits, extra] = value.split("/");
  const family = isIP(address);
  if (!family || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY → Fastify's trustProxy: unset/0/false trusts no proxy (the socket's address is
 * the client's), a number trusts that many hops, a list trusts those addresses/ranges. `true`
 * (trust anyone) is refused: any client could then forge X-Forwarded-For.
 */
const trustProxyField = z
  .string()
  .optional()
  .transform((value, ctx): false | number | string[] => {
    const text = (value ?? "").trim();
    if (text === "" || text === "0" || text === "false") return false;
    if (/^\d+$/.test(text)) return Number(text);
    const list = text.split(/[\s,]+/).filter(Boolean);
    if (list.every(isProxyAddress)) return list;
    ctx.addIssue({
      code: "custom",
      message:
        text === "true"
          ? "trusting every address lets any client forge X-Forwarded-For; give the number of proxies or their addresses"
          : "must be a number of proxies or a comma-separated list of IP addresses / CIDR ranges",
    });
    return z.NEVER;
  });

/** A Leaflet tile URL template: http(s), with {z}, {x} and {y} somewhere after the host. */
const tileUrlTemplate = z
  .string()
  .regex(/^https?:\/\/[^/?#]+[/?]/, "must be an http(s) URL template")
  .refine(
    (url) => ["{z}", "{x}", "{y}"].every((part) => url.slice(url.indexOf("//") + 2).includes(part)),
    "must be an http(s) URL template with {z}, {x} and {y}",
  );

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("0.0.0.0"),
  DATA_DIR: z.string().default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  MQTT_PORT: z.coerce.number().int().min(0).max(65535).default(1883),
  MQTT_URL: z
    .string()
    .regex(/^mqtts?:\/\//, "must be an mqtt:// URL")
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// URL")
    .optional(),
  /**
   * This node's own address as the other nodes reach it (several nodes: a visit is carried
   * to the node holding the device's tunnel). Default http://127.0.0.1:<PORT>.
   */
  NODE_URL: z
    .string()
    .regex(/^http:\/\/[^/]+$/, "must be http://host:port (no path), reachable by the other nodes")
    .optional(),
  /** Reverse proxies whose X-Forwarded-For / -Proto / -Host are believed (default: none). */
  TRUST_PROXY: trustProxyField,
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// URL")
    .optional(),
  SMS_PROVIDER: z.enum(["outbox", "aliyun"]).default("outbox"),
  /** Aliyun SMS (SMS_PROVIDER=aliyun): AccessKey pair, signature name and alarm template. */
  ALIYUN_SMS_ACCESS_KEY_ID: z.string().min(1).optional(),
  ALIYUN_SMS_ACCESS_KEY_SECRET: z.string().min(1).optional(),
  ALIYUN_SMS_SIGN_NAME: z.string().min(1).optional(),
  ALIYUN_SMS_TEMPLATE_CODE: z.string().min(1).optional(),
  /** Aliyun's verification-code template (variable `code`) for registration, reset and changes. */
  ALIYUN_SMS_CODE_TEMPLATE_CODE: z.string().min(1).optional(),
  ALIYUN_SMS_ENDPOINT: z.url().default("https://dysmsapi.aliyuncs.com"),
  /** EZVIZ open platform for camera accounts (open.ezvizlife.com outside mainland China). */
  EZVIZ_API_URL: z.url().default("https://open.ys7.com"),
  /** 4G IoT card carrier: the built-in simulator, or China Mobile OneLink (settings below). */
  IOT_CARRIER: z.enum(["simulator", "onelink"]).default("simulator"),
  /** OneLink (IOT_CARRIER=onelink): the group customer's API appid and password, and the API base. */
  ONELINK_APPID: z.string().min(1).optional(),
  ONELINK_PASSWORD: z.string().min(1).optional(),
  ONELINK_ENDPOINT: z.url().default("https://api.iot.10086.cn/v5"),
  /** Defaults to http://localhost:<PORT>. */
  PUBLIC_URL: z.url().optional(),
  /**
   * A registrable domain of its own for visit hosts (`<visit-id>.<VISIT_DOMAIN>`), as GitHub
   * serves user content from githubusercontent.com; unset: `<visit-id>.visit.<PUBLIC_URL host>`.
   */
  VISIT_DOMAIN: z
    .string()
    .transform((v) => v.trim().toLowerCase().replace(/\.$/, ""))
    .pipe(
      z
        .string()
        .regex(
          /^(?=.{1,200}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/,
          "must be a DNS name with at least two labels, e.g. keyway-visit.example.net (no scheme, no port)",
        ),
    )
    .optional(),
  SECRET_KEY: z
    .string()
    .regex(/^[0-9a-f]{64}$/i, "must be 64 hex characters (32 bytes)")
    .optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Bearer token for GET /metrics; unset: /metrics answers loopback clients only. */
  METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,256}$/, "must be 16 to 256 printable characters without spaces")
    .optional(),
  /** Seed the demo operator and demo user on an empty database. */
  DEMO: z.enum(["0", "1"]).default("1"),
  /** Where the built web app lives; served with SPA fallback when present. */
  WEB_DIST: z.string().default(WEB_DIST),
  /** Minutes a device may stay offline before an offline alarm is raised. */
  OFFLINE_ALARM_MINUTES: z.coerce.number().int().min(1).max(10_080).default(15),
  /** The ephemeral sender e-mail address. */
  MAIL_FROM: z.string().default("Keyway <no-reply@keyway.local>"),
  /** Where SCADA registrations are e-mailed (the operator's support desk). */
  SUPPORT_EMAIL: z.email().default("support@keyway.local"),
  /**
   * Cloud map tiles: a Leaflet URL template with {z}, {x} and {y} in any order (AMap's and
   * Tianditu's put them in the query), optionally {s} (docs/deploy.md "Map tiles").
   */
  MAP_TILE_URL: tileUrlTemplate.default("https://tile.openstreetmap.org/{z}/{x}/{y}.png"),
  MAP_TILE_ATTRIBUTION: z.string().default("© OpenStreetMap contributors"),
  /**
   * What {s} stands for: comma-separated ("t0,t1") or one character each ("1234"). Leaflet's
   * default "abc" fits OpenStreetMap-style servers only.
   */
  MAP_TILE_SUBDOMAINS: z
    .string()
    .regex(/^[A-Za-z0-9-]+(,[A-Za-z0-9-]+)*$/, "must be letters/digits, comma-separated or not")
    .default("abc"),
  /** A second, transparent layer drawn over the tiles: Tianditu's labels (cva_w). */
  MAP_TILE_OVERLAY_URL: tileUrlTemplate.optional(),
  /**
   * The datum of the tiles: gcj02 for AMap and other mainland Chinese maps ("Mars
   * coordinates"), whose positions the map then shifts device positions (WGS-84) into.
   */
  MAP_TILE_CRS: z.enum(["wgs84", "gcj02"]).default("wgs84"),
  /** The header's link to the new product version; unset hides the link. */
  NEW_VERSION_URL: z.url().optional(),
});

export type Config = Omit<z.infer<typeof envSchema>, "SECRET_KEY" | "DEMO" | "PUBLIC_URL"> & {
  SECRET_KEY: string;
  DEMO: boolean;
  PUBLIC_URL: string;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const values = parsed.data;
  if (values.SMS_PROVIDER === "aliyun") {
    const missing = (
      [
        "ALIYUN_SMS_ACCESS_KEY_ID",
        "ALIYUN_SMS_ACCESS_KEY_SECRET",
        "ALIYUN_SMS_SIGN_NAME",
        "ALIYUN_SMS_TEMPLATE_CODE",
        "ALIYUN_SMS_CODE_TEMPLATE_CODE",
      ] as const
    ).filter((k) => !values[k]);
    if (missing.length > 0)
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((k) => `  ${k}: required when SMS_PROVIDER=aliyun`).join("\n")}`,
      );
  }
  if (values.IOT_CARRIER === "onelink") {
    const missing = (["ONELINK_APPID", "ONELINK_PASSWORD"] as const).filter((k) => !values[k]);
    if (missing.length > 0)
      throw new ConfigError(
        `Invalid configuration:\n${missing.map((k) => `  ${k}: required when IOT_CARRIER=onelink`).join("\n")}`,
      );
  }
  const publicUrl = (values.PUBLIC_URL ?? `http://localhost:${values.PORT}`).replace(/\/$/, "");
  if (values.VISIT_DOMAIN) {
    // Under the platform's own name (or the other way round) the device pages would be the
    // same site as Keyway again: cookies tossed across, no isolation gained (docs/security.md).
    const host = new URL(publicUrl).hostname.toLowerCase();
    const domain = values.VISIT_DOMAIN;
    if (host === domain || host.endsWith(`.${domain}`) || domain.endsWith(`.${host}`))
      throw new ConfigError(
        `Invalid configuration:\n  VISIT_DOMAIN: must not be ${host} nor under or above it; use a registrable domain of its own`,
      );
  }
  const dataDir = path.resolve(values.DATA_DIR);
  return {
    ...values,
    DATA_DIR: dataDir,
    DEMO: values.DEMO === "1",
    PUBLIC_URL: publicUrl,
    SECRET_KEY: values.SECRET_KEY ?? secretKeyFromDataDir(dataDir),
  };
}

/** SECRET_KEY defaults to a key generated once and kept in DATA_DIR. */
function secretKeyFromDataDir(dataDir: string): string {
  const file = path.join(dataDir, "secret.key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString("hex");
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** A config for tests: embedded defaults, no files touched. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...envSchema.parse({ LOG_LEVEL: "silent", DEMO: "0" }),
    DEMO: false,
    PUBLIC_URL: "http://localhost:8080",
    SECRET_KEY: "0".repeat(64),
    ...overrides,
  };
}

/** Tests use a PostgreSQL server when DATABASE_URL is set (CI), PGlite in-process otherwise. */
export function testDatabaseUrl(): string | undefined {
  return process.env.DATABASE_URL || undefined;
}
