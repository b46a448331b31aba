import http from "node:http";
import cookie from "@fastify/cookie";
import formbody from "@fastify/formbody";
import helmet from "@fastify/helmet";
import websocket from "@fastify/websocket";
import { LOGOUT_REASON } from "@keyway/protocol";
import { sql } from "drizzle-orm";
import Fastify, { type FastifyInstance, type FastifyServerOptions } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { Config } from "./config.ts";
import type { Db } from "./db/client.ts";
import { domainEvents } from "./events.ts";
import { API_DOC_PREFIX, registerApiDoc } from "./http/apiDoc.ts";
import { requireOperator, requireUser } from "./http/auth.ts";
import { registerEnvelope } from "./http/envelope.ts";
import { CheckFailed, healthRoutes } from "./http/health.ts";
import { registerOriginCheck } from "./http/origin.ts";
import { registerRateLimits, trustProxyOf } from "./http/rateLimit.ts";
import { OneLinePerRequest, registerRequestId, requestIdOf, requestLog } from "./http/requestId.ts";
import { routesOn } from "./http/routes.ts";
import { refuseMalformedUrl, registerStorableText } from "./http/storableText.ts";
import { registerUpgradeRefusalClose } from "./http/upgradeHead.ts";
import { serveWeb } from "./http/web.ts";
import { type Bus, createInProcessBus } from "./infra/bus.ts";
import { type Clock, systemClock } from "./infra/clock.ts";
import { createMetrics } from "./infra/metrics.ts";
import { createRedisBus } from "./infra/redisBus.ts";
import { createSenders, type Senders } from "./infra/senders.ts";
import { createAliyunSmsProvider, outboxSmsProvider, type SmsProvider } from "./infra/sms.ts";
import { accessRoutes } from "./modules/access/routes.ts";
import { createAccessService } from "./modules/access/service.ts";
import { createQrLoginService } from "./modules/accounts/qrLogin.ts";
import { accountRoutes, qrLoginRoutes, twoFactorRoutes } from "./modules/accounts/routes.ts";
import { createAccountService } from "./modules/accounts/service.ts";
import { createTwoFactorService } from "./modules/accounts/twoFactor.ts";
import { createAlarmNotifier } from "./modules/alarmPush/notifier.ts";
import { alarmPushRoutes } from "./modules/alarmPush/routes.ts";
import type { AlarmSend } from "./modules/alarmPush/schema.ts";
import { createAlarmPushService } from "./modules/alarmPush/service.ts";
import { alarmRoutes } from "./modules/alarms/routes.ts";
import { createAlarmService } from "./modules/alarms/service.ts";
import { createEzvizClient } from "./modules/cameras/ezviz.ts";
import { cameraRoutes } from "./modules/cameras/routes.ts";
import { createCameraService } from "./modules/cameras/service.ts";
import { deviceRoutes, machineIconRoutes } from "./modules/devices/routes.ts";
import { screensFromHellos } from "./modules/devices/screens.ts";
import { createDeviceService } from "./modules/devices/service.ts";
import { enterpriseRoutes } from "./modules/enterprises/routes.ts";
import { createEnterpriseService } from "./modules/enterprises/service.ts";
import { gatewayRoutes } from "./modules/gateway/routes.ts";
import { createGateway } from "./modules/gateway/service.ts";
import {
  type CarrierAdapter,
  createOneLinkCarrier,
  createSimulatorCarrier,
} from "./modules/iotCards/carriers.ts";
import { iotCardRoutes } from "./modules/iotCards/routes.ts";
import { createIotCardService } from "./modules/iotCards/service.ts";
import { locationRoutes } from "./modules/location/routes.ts";
import { createLocationService } from "./modules/location/service.ts";
import { messageRoutes } from "./modules/messages/routes.ts";
import { createMessageService } from "./modules/messages/service.ts";
import { notifyRoutes } from "./modules/notify/routes.ts";
import { createNotifier } from "./modules/notify/service.ts";
import { createPermissions } from "./modules/permissions/service.ts";
import { tileImageSource, tileSubdomains } from "./modules/portal/mapTiles.ts";
import { portalRoutes } from "./modules/portal/routes.ts";
import { createPortalService } from "./modules/portal/service.ts";
import { projectRoutes } from "./modules/projects/routes.ts";
import { createProjectService } from "./modules/projects/service.ts";
import { createPushHub } from "./modules/push/service.ts";
import { createReportingService } from "./modules/reporting/service.ts";
import {
  createRedisTunnelRegistry,
  helloMany,
  localTunnelRegistry,
} from "./modules/tunnel/registry.ts";
import { tunnelRoutes } from "./modules/tunnel/routes.ts";
import { createTunnelHub } from "./modules/tunnel/service.ts";
import { createVerificationService } from "./modules/verification/service.ts";
import { createVisitHosts } from "./modules/visits/hosts.ts";
import { attachFront } from "./modules/visits/relay/front.ts";
import { createRelay } from "./modules/visits/relay.ts";
import {
  visitActivityCsvRoute,
  visitRoutes,
  visitScreenRoutes,
  visitTcpRoutes,
} from "./modules/visits/routes.ts";
import { createVisitService } from "./modules/visits/service.ts";
import { wallRoutes } from "./modules/wall/routes.ts";
import { createWallService } from "./modules/wall/service.ts";

export interface AppDeps {
  config: Config;
  db: Db;
  clock?: Clock;
  senders?: Senders;
  bus?: Bus;
  logger?: FastifyServerOptions["logger"];
  /** How often the gateway looks for silent devices; 0 turns it off (tests sweep by hand). */
  sweepEveryMs?: number;
  /** How often open visits re-check their rights (ms; default 3000). */
  visitRecheckMs?: number;
  /** How long the person at the machine has to accept a visit (ms; CONSENT_TIMEOUT_MS). */
  consentTimeoutMs?: number;
  /** Alarm SMS provider (default from SMS_PROVIDER); alarm job worker options for tests. */
  smsProvider?: SmsProvider;
  alarmJobs?: {
    pollSeconds?: number;
    afterProviderCall?: (send: AlarmSend) => void;
    /** How long an enterprise's webhook receiver has to answer (ms; 10 s). */
    webhookTimeoutMs?: number;
  };
  /** 4G card carrier (default from IOT_CARRIER) and how often cards are re-read (ms; 0 none). */
  iotCarrier?: CarrierAdapter;
  iotCardPassEveryMs?: number;
  /** How often due notifications (codes, outbox mails, retries) are looked for (ms; 0: by hand). */
  notifyEveryMs?: number;
  /**
   * Data reporting: how often failed deliveries are retried (ms; 0: only by hand, for
   * tests), trusted CAs of report servers, and the crash hook of the tests.
   */
  reporting?: {
    pollMs?: number;
    ca?: string;
    afterAcknowledged?: (projectId: number, seqs: number[]) => void;
    /** How long a node holds a project per batch (ms; a killed node's hold runs out). */
    leaseMs?: number;
    /** How long a report server may take over one batch, answer included (ms; 15 s). */
    timeoutMs?: number;
  };
}

export type App = Awaited<ReturnType<typeof buildApp>>;

/** The largest message on any WebSocket route (as a tunnel frame: docs/security.md). */
const WS_MAX_PAYLOAD = 2 * 1024 * 1024;

/** Builds the whole HTTP app from its dependencies; used by main.ts and by the tests. */
export async function buildApp(deps: AppDeps) {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;
  // Visit hosts (<id>.visit.<host>) and /visit/<id>/ belong to the device behind them: the
  // relay takes them before any plugin or route (set once the services exist, below) — on
  // the HTTP server ahead of Fastify, and in an onRequest hook for upgrades and inject().
  let relay: ReturnType<typeof createRelay> | undefined;
  const app: FastifyInstance = Fastify({
    logger: deps.logger ?? requestLog(config.LOG_LEVEL),
    // Every log line of a request carries its id (the caller's X-Request-Id when well-formed).
    genReqId: requestIdOf,
    logController: new OneLinePerRequest(),
    // Only the configured proxies may name the client (per-IP limits, terminal IPs).
    trustProxy: trustProxyOf(config.TRUST_PROXY),
    bodyLimit: 1024 * 1024,
    frameworkErrors: refuseMalformedUrl,
    serverFactory: (handler) => {
      const server = http.createServer((request, response) => {
        if (!relay?.take(request, response)) handler(request, response);
      });
      // Fastify's own defaults for the server it would have made.
      server.keepAliveTimeout = 72_000;
      server.requestTimeout = 0;
      server.setTimeout(0);
      // Plain visit requests are read and answered on the socket (relay/front.ts).
      attachFront(server, (request, done) => relay?.serveFront(request, done) ?? false);
      return server;
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest("caller", null);
  registerEnvelope(app);
  registerRequestId(app);
  registerStorableText(app);
  registerUpgradeRefusalClose(app);
  app.addHook("onRequest", async (request, reply) => relay?.onRequest(request, reply));
  // Visit hosts only under the configured domain (VISIT_DOMAIN, or visit.<PUBLIC_URL host>).
  const visitHosts = createVisitHosts({
    publicUrl: config.PUBLIC_URL,
    visitDomain: config.VISIT_DOMAIN,
  });
  registerOriginCheck(app, {
    publicUrl: config.PUBLIC_URL,
    isVisit: (request) => Boolean(relay?.route(request.raw)),
  });

  await app.register(cookie);
  await app.register(formbody);
  await app.register(helmet, {
    contentSecurityPolicy: {
      directives: {
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        // The cloud map's tile server (MAP_TILE_URL) as well.
        "img-src": [
          "'self'",
          "data:",
          "blob:",
          ...new Set(
            [config.MAP_TILE_URL, config.MAP_TILE_OVERLAY_URL ?? config.MAP_TILE_URL].map(
              tileImageSource,
            ),
          ),
        ],
        "connect-src": ["'self'", "ws:", "wss:"],
        // Plain http on a LAN address must keep working: upgrading its requests to https
        // would break every script and call there.
        "upgrade-insecure-requests": config.PUBLIC_URL.startsWith("https:") ? [] : null,
      },
    },
  });
  // No WebSocket message above 2 MiB on any route: tunnel frames, MQTT packets and forwards
  // are far smaller, and a hostile peer must not make a node hold ws's default 100 MiB.
  // /mqtt and /ws bound each socket further (http/websocketLimits.ts).
  await app.register(websocket, { options: { maxPayload: WS_MAX_PAYLOAD } });
  await registerRateLimits(app, { redisUrl: config.REDIS_URL });
  // The OpenAPI document and Swagger UI at /apiDoc, in the reader's language.
  await registerApiDoc(app);

  const senders =
    deps.senders ??
    createSenders({
      smtpUrl: config.SMTP_URL,
      mailFrom: config.MAIL_FROM,
      smsProvider: smsProviderOf(config, config.ALIYUN_SMS_CODE_TEMPLATE_CODE),
    });
  // Several nodes share pushes through Redis when REDIS_URL is set (docs/architecture/push.md#several-nodes).
  const redisBus =
    !deps.bus && config.REDIS_URL ? createRedisBus(config.REDIS_URL, { log: app.log }) : null;
  const bus = deps.bus ?? redisBus ?? createInProcessBus();
  // Domain events (src/events.ts): modules publish and subscribe; this function only wires.
  const events = domainEvents(bus);
  // Who sees / receives / may act on a device: one owner, read by every module below.
  const permissions = createPermissions({ db });
  const notifier = createNotifier({ db, clock, senders, log: app.log });
  // Alarm pushes: configuration and stock, and the SMS / e-mail / webhook jobs (pg-boss).
  const alarmPush = createAlarmPushService({
    db,
    clock,
    secretKey: config.SECRET_KEY,
  });
  const alarmNotify = createAlarmNotifier({
    db,
    clock,
    log: app.log,
    senders,
    notifier,
    permissions,
    events,
    secretKey: config.SECRET_KEY,
    sms: deps.smsProvider ?? smsProviderOf(config, config.ALIYUN_SMS_TEMPLATE_CODE),
    pollSeconds: deps.alarmJobs?.pollSeconds,
    afterProviderCall: deps.alarmJobs?.afterProviderCall,
    webhookTimeoutMs: deps.alarmJobs?.webhookTimeoutMs,
  });
  const verification = createVerificationService({
    db,
    clock,
    notifier,
    secretKey: config.SECRET_KEY,
  });
  const accounts = createAccountService({
    db,
    clock,
    verification,
    // Two-factor login: a right password gets a challenge instead of a session when it is on.
    secondFactor: (user, input) => twoFactor.challengeFor(user, input),
    events,
  });
  const twoFactor = createTwoFactorService({
    db,
    clock,
    secretKey: config.SECRET_KEY,
    openSession: accounts.openSession,
    endOtherSessions: (caller) => accounts.endOtherSessions(caller, LOGOUT_REASON.twoFactorEnabled),
  });
  const qrLogin = createQrLoginService({ db, clock, openSession: accounts.openSession });
  const push = createPushHub({
    events,
    authenticate: accounts.authenticate,
    log: app.log,
  });
  push.register(app);
  await redisBus?.ready().catch(async (error) => {
    await redisBus.close();
    throw error;
  });
  // Messages and the access workflow refer to each other (a message shows its request).
  const messages = createMessageService({
    db,
    clock,
    push: (userId, message) => push.toUser(userId, message),
    describeRequests: (ids, viewerId) => access.describe(ids, viewerId),
    permissions,
    events,
    log: app.log,
  });
  const access = createAccessService({
    db,
    clock,
    messages,
    permissions,
    findUser: (ref) => accounts.findUser(ref),
    events,
  });
  // Several nodes: which node holds each device's tunnel, in Redis (docs/architecture/scale-out.md#the-tunnel-registry).
  const tunnelRegistry = config.REDIS_URL
    ? createRedisTunnelRegistry({
        url: config.REDIS_URL,
        self: config.NODE_URL ?? `http://127.0.0.1:${config.PORT}`,
        log: app.log,
      })
    : localTunnelRegistry;
  const tunnels = createTunnelHub({ log: app.log, registry: tunnelRegistry, events });
  // Machine.screen on the device lists: one hello lookup per page, wherever the tunnels are.
  const screens = screensFromHellos((ids) => helloMany(tunnels, tunnelRegistry, ids));
  const visits = createVisitService({
    db,
    clock,
    log: app.log,
    events,
    access,
    tunnels,
    publicUrl: config.PUBLIC_URL,
    hosts: visitHosts,
    recheckMs: deps.visitRecheckMs,
    consentTimeoutMs: deps.consentTimeoutMs,
  });
  const visitRelay = createRelay({
    visits,
    hosts: visitHosts,
    publicUrl: config.PUBLIC_URL,
    log: app.log,
  });
  relay = visitRelay;
  // Data reporting: points queued before the device's PUBACK, delivered to project servers.
  const reporting = createReportingService({
    db,
    clock,
    log: app.log,
    keyOf: (project) => projects.keyOf(project),
    transport: { ca: deps.reporting?.ca, timeoutMs: deps.reporting?.timeoutMs },
    afterAcknowledged: deps.reporting?.afterAcknowledged,
    leaseMs: deps.reporting?.leaseMs,
  });
  const gateway = createGateway({
    db,
    clock,
    log: app.log,
    storeData: reporting.storePoint,
    events,
    offlineAlarmMinutes: config.OFFLINE_ALARM_MINUTES,
    mqttUrl: config.MQTT_URL,
    nodePort: config.PORT,
  });
  await gateway.start({ sweepEveryMs: deps.sweepEveryMs ?? 30_000 });
  const devices = createDeviceService({
    db,
    clock,
    permissions,
    sendCommand: gateway.sendCommand,
    events,
    releaseFromProjects: (deviceId) => projects.releaseUnmanaged(deviceId),
    screens,
  });
  const location = createLocationService({ db, clock, devices, sendCommand: gateway.sendCommand });
  const enterprises = createEnterpriseService({
    db,
    clock,
    permissions,
    findUser: (ref) => accounts.findUser(ref),
    releaseFromProjects: (eid, type, deviceId) =>
      projects.releaseFromEnterprise(eid, type, deviceId),
    screens,
  });
  const projects = createProjectService({
    db,
    clock,
    secretKey: config.SECRET_KEY,
    findUser: (ref) => accounts.findUser(ref),
    requireEnterpriseList: (userId, eid, type) =>
      enterprises.requireList({ userId, role: "user" }, eid, type),
    delivery: (projectId) => reporting.view(projectId),
    reportSettingsChanged: (projectId) => reporting.retryNow(projectId),
    machineReleased: (projectId, deviceId) => reporting.dropDevice(projectId, deviceId),
  });
  const alarms = createAlarmService({
    db,
    clock,
    personalScope: devices.personalScope,
    enterpriseScope: enterprises.deviceScope,
    mayConfirmAll: access.mayConfirmAllAlarms,
  });
  // The TV-box device wall: the same contexts as the alarm centre.
  const wall = createWallService({
    db,
    personalScope: devices.personalScope,
    enterpriseScope: enterprises.deviceScope,
  });
  // Camera cloud accounts: EZVIZ key pairs checked at the open platform (EZVIZ_API_URL).
  const cameras = createCameraService({
    db,
    clock,
    secretKey: config.SECRET_KEY,
    ezviz: createEzvizClient({ baseUrl: config.EZVIZ_API_URL, log: app.log }),
    roleOf: async (userId, deviceId) => (await devices.roleInfo(userId, deviceId)).role,
  });
  const portal = createPortalService({
    db,
    clock,
    notifier,
    supportEmail: config.SUPPORT_EMAIL,
    client: {
      mapTileUrl: config.MAP_TILE_URL,
      mapTileAttribution: config.MAP_TILE_ATTRIBUTION,
      mapTileSubdomains: tileSubdomains(config.MAP_TILE_SUBDOMAINS),
      mapTileOverlayUrl: config.MAP_TILE_OVERLAY_URL ?? null,
      mapTileCrs: config.MAP_TILE_CRS,
      newVersionUrl: config.NEW_VERSION_URL ?? null,
      apiDocUrl: API_DOC_PREFIX,
      visitDomain: config.VISIT_DOMAIN ?? null,
    },
    enterprises,
  });
  // 4G IoT cards: read from the carrier (IOT_CARRIER), warnings stored as device alarms.
  const iotCards = createIotCardService({
    db,
    clock,
    log: app.log,
    carrier: deps.iotCarrier ?? carrierOf(config, clock),
    publicUrl: config.PUBLIC_URL,
    personalScope: devices.personalScope,
    enterpriseScope: enterprises.deviceScope,
    events,
  });
  // Probes and Prometheus (/healthz, /readyz, /metrics): each figure asked of its module.
  const metrics = createMetrics(
    {
      events,
      devicesOnline: () => gateway.ingest.onlineCount(),
      tunnelsHeld: () => tunnels.stats().links,
      visits: () => visits.stats(),
      pushSockets: () => push.socketCount(),
      notificationsPending: () => notifier.pendingCount(),
      alarmSendsPending: () => alarmNotify.queueSize(),
      reportBacklog: () => reporting.backlogTotal(),
    },
    app.log,
  );
  healthRoutes(app, {
    checks: {
      database: async () => {
        await db.execute(sql`select 1`);
      },
      mqtt: () => {
        if (!gateway.brokerUp())
          throw new CheckFailed(gateway.external ? "broker not connected" : "broker stopped");
      },
      // The bus's own connections: a node that cannot reach Redis misses other nodes' pushes.
      ...(redisBus && { redis: () => redisBus.ping() }),
    },
    metricsToken: config.METRICS_TOKEN,
    metrics,
  });
  const auth = requireUser(accounts.authenticate);
  const operator = requireOperator(accounts.authenticate);

  await app.register(async (api) => {
    // Contract routes (packages/shared/src/contract/): each declares its guard.
    const serve = routesOn(api, { user: auth, operator });
    accountRoutes(serve, { accounts });
    qrLoginRoutes(serve, { qrLogin });
    twoFactorRoutes(serve, { twoFactor, accounts });
    notifyRoutes(serve, { notifier });
    deviceRoutes(serve, { devices });
    machineIconRoutes(api);
    enterpriseRoutes(serve, { enterprises });
    gatewayRoutes(api, { gateway });
    locationRoutes(serve, { location });
    alarmRoutes(serve, { alarms });
    wallRoutes(serve, { wall });
    accessRoutes(serve, { access, messages });
    alarmPushRoutes(serve, { push: alarmPush, notify: alarmNotify });
    messageRoutes(serve, { messages });
    projectRoutes(serve, { projects });
    iotCardRoutes(serve, { iotCards });
    portalRoutes(serve, { portal });
    cameraRoutes(serve, { cameras });
    tunnelRoutes(api, { hub: tunnels, authenticate: gateway.ingest.authenticate });
    visitRoutes(serve, {
      visits,
      enterpriseDevice: (caller, eid, deviceId) =>
        enterprises.machineInfo({ userId: caller.userId, role: caller.role }, eid, deviceId),
      projectVisit: (caller, deviceId, projectId) =>
        projects.checkVisit(caller.userId, deviceId, projectId),
    });
    visitTcpRoutes(api, { relay: visitRelay, auth });
    visitScreenRoutes(api, { relay: visitRelay });
    visitActivityCsvRoute(api, { visits, auth });
  });

  // Alarms stored just before a stop are told now (their messages were not yet written).
  app.addHook("onReady", async () => {
    // Alarm notification jobs: pg-boss on the same database, then the catch-up.
    await alarmNotify.start().catch((error) => app.log.error({ err: error }, "alarm jobs"));
    messages.catchUpAlarms().catch((error) => app.log.error({ err: error }, "alarm catch-up"));
    iotCards.start(deps.iotCardPassEveryMs ?? 10 * 60_000);
    notifier.start(deps.notifyEveryMs ?? 1_000);
    reporting.start(deps.reporting?.pollMs ?? 1_000);
  });

  await serveWeb(app, config.WEB_DIST);
  app.addHook("onClose", async () => {
    // Reporting takes no new batch from the moment the stop begins (the one in flight
    // finishes); the other parts close first, then it is waited for.
    const reportingStopped = reporting.stop();
    await push.close();
    await visits.close();
    await tunnels.close();
    await redisBus?.close();
    await notifier.stop();
    await alarmNotify.stop();
    await iotCards.stop();
    await gateway.close();
    await reportingStopped;
    metrics.close();
    senders.close();
  });

  return Object.assign(app, {
    services: {
      accounts,
      notifier,
      alarmPush,
      alarmNotify,
      verification,
      devices,
      enterprises,
      gateway,
      bus,
      events,
      push,
      access,
      messages,
      tunnels,
      visits,
      projects,
      iotCards,
      reporting,
    },
  });
}

/**
 * SMS_PROVIDER: the local outbox, or Aliyun SMS with its settings (checked by config.ts);
 * alarms use the alarm template, verification codes pass their own template.
 */
function smsProviderOf(config: Config, templateCode: string | undefined): SmsProvider {
  if (config.SMS_PROVIDER !== "aliyun") return outboxSmsProvider;
  return createAliyunSmsProvider({
    accessKeyId: config.ALIYUN_SMS_ACCESS_KEY_ID ?? "",
    accessKeySecret: config.ALIYUN_SMS_ACCESS_KEY_SECRET ?? "",
    signName: config.ALIYUN_SMS_SIGN_NAME ?? "",
    templateCode: templateCode ?? "",
    endpoint: config.ALIYUN_SMS_ENDPOINT,
  });
}

/** IOT_CARRIER: the simulator (the demo's), or China Mobile OneLink (settings checked by config.ts). */
function carrierOf(config: Config, clock: Clock): CarrierAdapter {
  if (config.IOT_CARRIER !== "onelink") return createSimulatorCarrier({ clock });
  return createOneLinkCarrier({
    appid: config.ONELINK_APPID ?? "",
    password: config.ONELINK_PASSWORD ?? "",
    endpoint: config.ONELINK_ENDPOINT,
    clock,
  });
}
