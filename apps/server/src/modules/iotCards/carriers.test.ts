import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../infra/clock.ts";
import { CarrierError, createOneLinkCarrier, createSimulatorCarrier } from "./carriers.ts";
import { startOneLinkStandIn } from "./oneLinkStandIn.ts";

const ACCOUNT = { appid: "200216378200200", password: "s3cret-pass" };
const ICCID = "898604B30522D0395436";
let standIn: Awaited<ReturnType<typeof startOneLinkStandIn>>;
const clock = new ManualClock(new Date("2026-11-21T08:00:00Z"));

beforeAll(async () => {
  standIn = await startOneLinkStandIn(ACCOUNT);
  standIn.cards.set(ICCID, {
    msisdn: "1440412345678",
    imsi: "460040123456789",
    activeDate: "2025-03-14 10:13:44",
    cardStatus: "2",
    offeringId: "I00010101234",
    offeringName: "物联网 1GB 月包",
    totalAmount: 1024 * 1024,
    useAmount: 300 * 1024,
    expiriedDate: "20261231235959",
  });
});
afterAll(() => standIn.close());

const oneLink = (password = ACCOUNT.password) =>
  createOneLinkCarrier({ ...ACCOUNT, password, endpoint: standIn.endpoint, clock });

describe("China Mobile OneLink adapter", () => {
  it("reads a card with one token: number, state, plan traffic and the plan's expiry", async () => {
    const before = standIn.tokenCalls();
    const carrier = oneLink();
    const info = await carrier.cardInfo(ICCID);
    expect(info).toEqual({
      iccid: ICCID,
      msisdn: "1440412345678",
      imsi: "460040123456789",
      state: "working",
      planName: "物联网 1GB 月包",
      totalKb: 1024 * 1024,
      usedKb: 300 * 1024,
      // Beijing time on the wire.
      expiresAt: new Date("2026-12-31T15:59:59Z"),
      activatedAt: new Date("2025-03-14T02:13:44Z"),
    });
    await carrier.cardInfo(ICCID);
    expect(standIn.tokenCalls() - before).toBe(1);
    // Every call named the card by ICCID and carried its own transid (the stand-in refuses repeats).
    const queries = standIn.calls.filter((c) => c.path.startsWith("/v5/ec/query/"));
    expect(queries.every((c) => c.params.iccid === ICCID && c.params.token)).toBe(true);
  });

  it("maps OneLink's card states onto the SPEC's", async () => {
    const carrier = oneLink();
    const card = standIn.cards.get(ICCID);
    if (!card) throw new Error("no card");
    const seen: Record<string, string> = {};
    for (const status of ["1", "2", "4", "6", "7", "8", "99"]) {
      card.cardStatus = status;
      seen[status] = (await carrier.cardInfo(ICCID))?.state ?? "none";
    }
    card.cardStatus = "2";
    expect(seen).toEqual({
      "1": "activationPending",
      "2": "working",
      "4": "outOfService",
      "6": "unactivated",
      "7": "unactivated",
      "8": "cancelled",
      "99": "unknown",
    });
  });

  it("fetches a new token once when the carrier says the old one expired", async () => {
    const carrier = oneLink();
    await carrier.cardInfo(ICCID);
    const before = standIn.tokenCalls();
    standIn.revokeTokens();
    const info = await carrier.cardInfo(ICCID);
    expect(info?.state).toBe("working");
    expect(standIn.tokenCalls() - before).toBe(1);
  });

  it("reports the carrier's refusals with a neutral code; the carrier's words stay in the log", async () => {
    const wrong = oneLink("not-the-password");
    await expect(wrong.cardInfo(ICCID)).rejects.toBeInstanceOf(CarrierError);
    await expect(wrong.cardInfo(ICCID)).rejects.toThrow(/appid 或密码错误/);
    await expect(wrong.cardInfo(ICCID)).rejects.toMatchObject({
      status: "12002",
      readError: "refused:12002",
    });
  });

  it("answers null for a card outside the group (12009): the carrier does not know it", async () => {
    expect(await oneLink().cardInfo("89860400000000009999")).toBeNull();
  });

  it("turns a carrier that cannot be reached into a CarrierError", async () => {
    const carrier = createOneLinkCarrier({
      ...ACCOUNT,
      endpoint: "http://127.0.0.1:9/v5",
      clock,
      timeoutMs: 2000,
    });
    await expect(carrier.cardInfo(ICCID)).rejects.toBeInstanceOf(CarrierError);
  });
});

describe("simulator carrier", () => {
  const sim = createSimulatorCarrier({ clock });

  it("gives each card repeatable figures, and the profiles the demo relies on", async () => {
    const heavy = await sim.cardInfo("89860400000000000109");
    expect(await sim.cardInfo("89860400000000000109")).toEqual(heavy);
    expect(heavy?.state).toBe("working");
    // A heavy user has at most 10 % left; a weekly plan ends within the week.
    expect((heavy?.usedKb ?? 0) / (heavy?.totalKb ?? 1)).toBeGreaterThanOrEqual(0.9);
    const weekly = await sim.cardInfo("89860400000000000208");
    const daysLeft = ((weekly?.expiresAt?.getTime() ?? 0) - clock.now().getTime()) / 86_400_000;
    expect(daysLeft).toBeGreaterThan(0);
    expect(daysLeft).toBeLessThanOrEqual(7);
    expect((await sim.cardInfo("89860400000000000392"))?.state).toBe("suspended");
    expect(await sim.cardInfo("89860400000000000399")).toBeNull();
  });
});
