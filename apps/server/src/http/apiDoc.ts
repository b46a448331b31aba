import swagger from "@fastify/swagger";
import swaggerUi, { type FastifySwaggerUiOptions } from "@fastify/swagger-ui";
import { type Bilingual, type Lang, pick } from "@keyway/shared";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";
import { requestLang } from "./lang.ts";

/** Where the Swagger UI page is; its document is at `<prefix>/json` (and `/yaml`). */
export const API_DOC_PREFIX = "/apiDoc";

/**
 * Our texts of the OpenAPI document in both languages: its title and description and what
 * each tag of the routes covers (a route's tag missing here is caught by the tests).
 */
export const API_DOC_TEXTS = {
  title: { zh: "Keyway 接口文档", en: "Keyway API" },
  description: {
    zh: "SPEC §7 的接口。每个应答都是 `{hwcode, hwdata, msg}`；`msg` 的语言取自查询参数 `language`（`cn` | `en`）或 `lang` Cookie。已登录用户的调用在 `cloudtoken` 请求头中带上登录令牌。",
    en: "The calls of SPEC §7. Every answer is `{hwcode, hwdata, msg}`; `msg` is in the language of the `language` query (`cn` | `en`) or of the `lang` cookie. Calls of a logged-in user carry its token in the `cloudtoken` header.",
  },
  tags: {
    account: {
      zh: "账号：注册、登录（含二次验证与扫码登录）、资料、终端与安全",
      en: "Accounts: sign-up, login (two-factor and QR login too), profile, terminals and safety",
    },
    devices: {
      zh: "个人设备：添加、列表、详情、设置与设备墙",
      en: "Personal devices: adding, list, details, settings and the device wall",
    },
    groups: { zh: "个人设备分组", en: "Personal device groups" },
    access: {
      zh: "绑定与访问申请、审核，Akey / Bkey 与黑白名单",
      en: "Bind and visit requests, their audit, Akey / Bkey and the lists",
    },
    messages: { zh: "消息中心：收件箱与发件箱", en: "The message centre: inbox and outbox" },
    alarms: { zh: "报警中心", en: "The alarm centre" },
    "alarm pushes": {
      zh: "报警推送：短信、邮件与 Webhook 的配置和余量",
      en: "Alarm pushes: SMS, e-mail and webhook settings and stock",
    },
    location: { zh: "设备定位", en: "Device location" },
    visits: { zh: "远程访问设备（云访问）", en: "Remote visits of devices (cloud visit)" },
    cameras: { zh: "摄像头云账号（萤石）", en: "Camera cloud accounts (EZVIZ)" },
    enterprises: { zh: "企业与企业成员", en: "Enterprises and their members" },
    "enterprise admin": {
      zh: "企业管理员：成员、设备分组与设备",
      en: "Enterprise administrators: members, device groups and devices",
    },
    projects: { zh: "项目与数据上报", en: "Projects and data reporting" },
    iotCards: { zh: "4G 物联网卡", en: "4G IoT cards" },
    portal: {
      zh: "门户：品牌、客户端配置、地图与意见反馈",
      en: "The portal: brand, client settings, map and feedback",
    },
    "broker hooks": {
      zh: "MQTT 代理的设备认证回调",
      en: "The MQTT broker's device authentication hooks",
    },
    operator: {
      zh: "运营后台（仅运营人员）",
      en: "The operator's back office (operators only)",
    },
  },
} satisfies {
  title: Bilingual;
  description: Bilingual;
  tags: Record<string, Bilingual>;
};

interface OpenApiDocument {
  info: { title: string; description?: string; version: string };
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, { tags?: string[] }>>;
}

/** The document in one language: our title, description and tags' descriptions. */
export function localizeApiDoc<T extends OpenApiDocument>(doc: T, lang: Lang): T {
  const used = new Set<string>();
  for (const item of Object.values(doc.paths ?? {}))
    for (const operation of Object.values(item))
      for (const tag of operation.tags ?? []) used.add(tag);
  const texts: Record<string, Bilingual> = API_DOC_TEXTS.tags;
  return {
    ...doc,
    info: {
      ...doc.info,
      title: pick(API_DOC_TEXTS.title, lang),
      description: pick(API_DOC_TEXTS.description, lang),
    },
    // Every tag the routes use, in the order of the table (then any other, by name).
    tags: [...used]
      .sort((a, b) => order(a) - order(b) || a.localeCompare(b))
      .map((name) => (texts[name] ? { name, description: pick(texts[name], lang) } : { name })),
  };
}

const TAG_ORDER = Object.keys(API_DOC_TEXTS.tags);
const order = (tag: string) => {
  const i = TAG_ORDER.indexOf(tag);
  return i < 0 ? TAG_ORDER.length : i;
};

type UiConfig = NonNullable<FastifySwaggerUiOptions["uiConfig"]>;

/**
 * Swagger UI in the browser: it runs this function (serialized into its initializer, so it
 * must stay self-contained) on each request. The document comes from the absolute URL of
 * `urls`, with the page's `language` (or `lang`) query: `/apiDoc?language=en` reads
 * `/apiDoc/json?language=en`; without one the server takes the cookie or Accept-Language.
 */
const requestInterceptor = (req: { url: string; loadSpec?: boolean }) => {
  if (req.loadSpec) {
    const page = (globalThis as unknown as { location: { href: string; search: string } }).location;
    const query = new URLSearchParams(page.search);
    const lang = query.get("language") || query.get("lang");
    const url = new URL(req.url, page.href);
    if (lang && !url.searchParams.has("language")) url.searchParams.set("language", lang);
    req.url = url.href;
  }
  return req;
};

/**
 * The OpenAPI document of the routes and Swagger UI at /apiDoc (SPEC §2 /apiDoc), both in
 * the reader's language (`?language=cn|en`, else the `lang` cookie or Accept-Language).
 * Register before the routes. The page loads its document from an absolute URL: Swagger UI's
 * own `./json` resolved against `/apiDoc?language=en` would be `/apiDoc?language=en/./json`.
 */
export async function registerApiDoc(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      info: {
        title: API_DOC_TEXTS.title.en,
        version: "1.0.0",
        description: API_DOC_TEXTS.description.en,
      },
      components: {
        securitySchemes: { cloudtoken: { type: "apiKey", in: "header", name: "cloudtoken" } },
      },
      security: [{ cloudtoken: [] }],
    },
    transform: jsonSchemaTransform,
  });
  await app.register(swaggerUi, {
    routePrefix: API_DOC_PREFIX,
    theme: { title: `${API_DOC_TEXTS.title.en} · ${API_DOC_TEXTS.title.zh}` },
    uiConfig: {
      urls: [{ url: `${API_DOC_PREFIX}/json`, name: API_DOC_TEXTS.title.en }],
      // Swagger UI's type is the DOM's Request; it passes its own request objects.
      requestInterceptor: requestInterceptor as unknown as UiConfig["requestInterceptor"],
    },
    transformSpecification: (doc, request) =>
      localizeApiDoc(doc as unknown as OpenApiDocument, requestLang(request)),
  });
}
