import { createServer, type IncomingMessage, type Server } from "node:http";

/** A card as the stand-in's group account holds it (OneLink's own field names and units). */
export interface StandInCard {
  msisdn: string;
  imsi: string;
  activeDate: string;
  /** sim-status cardStatus: 1 waiting, 2 active, 4 stopped, 6 testable, 7 stock, 8 pre-cancelled. */
  cardStatus: string;
  offeringId: string;
  offeringName: string;
  /** KB. */
  totalAmount: number;
  useAmount: number;
  /** ordered-offerings expiriedDate, "yyyyMMddHHmmss" Beijing time. */
  expiriedDate: string;
}

/**
 * A local stand-in for China Mobile OneLink's v5 API, checking requests the way the real
 * one does: the token call needs the account's appid and password and a transid of appid +
 * yyyyMMddHHmmss + 8 digits; every query needs a live token and a transid not used before,
 * and names exactly one card. Tokens can be revoked (the carrier's 12021).
 */
export async function startOneLinkStandIn(account: { appid: string; password: string }) {
  const cards = new Map<string, StandInCard>();
  const tokens = new Set<string>();
  const seenTransids = new Set<string>();
  const calls: { path: string; params: Record<string, string> }[] = [];
  let issued = 0;
  /** When set, every card query is refused with this (the carrier busy, throttling, ...). */
  let refusal: { status: string; message: string } | null = null;

  const reply = (res: import("node:http").ServerResponse, body: unknown) => {
    res.writeHead(200, { "content-type": "application/json;charset=UTF-8" });
    res.end(JSON.stringify(body));
  };
  const error = (status: string, message: string) => ({ status, message, result: [] });

  function handle(req: IncomingMessage) {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const params = Object.fromEntries(url.searchParams);
    calls.push({ path: url.pathname, params });
    const transid = params.transid ?? "";
    if (!new RegExp(`^${account.appid}\\d{14}\\d{8}$`).test(transid))
      return error("12001", "transid 格式错误");
    if (seenTransids.has(transid)) return error("12003", "transid 重复");
    seenTransids.add(transid);
    if (url.pathname === "/v5/ec/get/token") {
      if (params.appid !== account.appid || params.password !== account.password)
        return error("12002", "appid 或密码错误");
      const token = `tok-${++issued}`;
      tokens.add(token);
      return { status: "0", message: "正确", result: [{ token, ttl: "3600" }] };
    }
    if (!tokens.has(params.token ?? "")) return error("12021", "token 已失效");
    const keys = ["msisdn", "iccid", "imsi"].filter((k) => params[k]);
    if (keys.length !== 1) return error("12004", "msisdn、iccid、imsi 必须有且只有一项");
    if (refusal) return error(refusal.status, refusal.message);
    const card = cards.get(params.iccid ?? "");
    if (!card) return error("12009", "该卡不属于本集团");
    switch (url.pathname) {
      case "/v5/ec/query/sim-basic-info":
        return {
          status: "0",
          message: "正确",
          result: [
            {
              msisdn: card.msisdn,
              iccid: params.iccid,
              imsi: card.imsi,
              activeDate: card.activeDate,
              openDate: card.activeDate,
            },
          ],
        };
      case "/v5/ec/query/sim-status":
        return { status: "0", message: "正确", result: [{ cardStatus: card.cardStatus }] };
      case "/v5/ec/query/sim-data-margin":
        return {
          status: "0",
          message: "正确",
          result: [
            {
              accmMarginList: [
                {
                  offeringId: card.offeringId,
                  offeringName: card.offeringName,
                  apnName: "CMIOT",
                  totalAmount: String(card.totalAmount),
                  useAmount: String(card.useAmount),
                  remainAmount: String(card.totalAmount - card.useAmount),
                },
              ],
            },
          ],
        };
      case "/v5/ec/query/ordered-offerings":
        if (params.queryType !== "3") return error("12004", "queryType 错误");
        return {
          status: "0",
          message: "正确",
          result: [
            {
              offeringInfoList: [
                {
                  offeringId: "I00010100001",
                  offeringName: "基础套餐",
                  effectiveDate: "20240101000000",
                  expiriedDate: "20991231235959",
                },
                {
                  offeringId: card.offeringId,
                  offeringName: card.offeringName,
                  effectiveDate: "20250101000000",
                  expiriedDate: card.expiriedDate,
                },
              ],
            },
          ],
        };
      default:
        return error("12404", "接口不存在");
    }
  }

  const server: Server = createServer((req, res) => {
    if (req.method !== "GET") return reply(res, error("12405", "请求方式错误"));
    reply(res, handle(req));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const port = (server.address() as { port: number }).port;

  return {
    endpoint: `http://127.0.0.1:${port}/v5`,
    cards,
    calls,
    /** The carrier ends every token (its 12021 "token expired"). */
    revokeTokens: () => tokens.clear(),
    /** Refuse every card query with this status and message (null: answer again). */
    refuse: (value: { status: string; message: string } | null) => {
      refusal = value;
    },
    tokenCalls: () => calls.filter((c) => c.path === "/v5/ec/get/token").length,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
