import { HW, LOCATION_REFRESH_PER_DAY, type ProvisionedDevice } from "@keyway/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";

let h: Harness;
let owner: string;
let stranger: string;
let machineId: number;

beforeAll(async () => {
  h = await createHarness();
  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123");
  owner = await h.signUp("owner@example.com");
  stranger = await h.signUp("stranger@example.com");
  const res = await h.call("POST", "/api/operator/v1/devices/provision", {
    form: { count: 1 },
    token: operator,
  });
  const d: ProvisionedDevice = res.body.hwdata.list[0];
  const added = await h.call("POST", "/api/machine/add", {
    form: { machineName: "Pump", machineCode: d.machineCode, machinePwd: d.devicePassword },
    token: owner,
  });
  machineId = added.body.hwdata.machine_id;
});
afterAll(() => h.close());

describe("device location", () => {
  it("places a device by hand and switches back to an automatic way", async () => {
    const manual = await h.call("POST", "/api/machine/machineManualLocation", {
      form: { machineId, lat: 31.2304, lng: 121.4737, address: "Shanghai plant" },
      token: owner,
    });
    expect(manual.body.hwdata).toMatchObject({
      lat: 31.2304,
      lng: 121.4737,
      address: "Shanghai plant",
      locationWay: "manual",
    });
    const bad = await h.call("POST", "/api/v1/machine/setMachineLocation", {
      form: { machineId, lat: 91, lng: 0 },
      token: owner,
      lang: "en",
    });
    expect(bad.body).toMatchObject({ hwcode: 400, msg: "Latitude or longitude out of range" });
    const auto = await h.call("POST", "/api/machine/machineAutoLocationWay", {
      form: { machineId, way: "base" },
      token: owner,
    });
    expect(auto.body.hwdata.locationWay).toBe("base");
    const way = await h.call("POST", "/api/machine/machineLocationWay", {
      form: { machineId },
      token: owner,
    });
    expect(way.body.hwdata).toMatchObject({
      locationWay: "base",
      remaining: LOCATION_REFRESH_PER_DAY,
    });
  });

  it("allows five fixes a day, then refuses with the SPEC's message", async () => {
    for (let i = LOCATION_REFRESH_PER_DAY - 1; i >= 0; i--) {
      const res = await h.call("POST", "/api/machine/machineAutoLocationAddress", {
        form: { machineId },
        token: owner,
      });
      expect(res.body.hwdata.remaining).toBe(i);
    }
    const sixth = await h.call("POST", "/api/machine/machineAutoLocationAddress", {
      form: { machineId },
      token: owner,
      lang: "en",
    });
    expect(sixth.body).toMatchObject({
      hwcode: HW.LOCATION_DAILY_LIMIT.code,
      msg: "You have run out of location fixes for the day",
    });
    h.clock.advance(24 * 3600_000 + 1000);
    // A day later the session tokens have expired too: log in again.
    owner = await h.login("owner@example.com", "secret123");
    stranger = await h.login("stranger@example.com", "secret123");
    const nextDay = await h.call("POST", "/api/machine/machineStationLocationNum", {
      form: { machineId },
      token: owner,
    });
    expect(nextDay.body.hwdata.remaining).toBe(LOCATION_REFRESH_PER_DAY);
  });

  it("keeps other users away from a device's location", async () => {
    for (const path of [
      "/api/machine/machineLocationWay",
      "/api/machine/machineAutoLocationAddress",
    ]) {
      const res = await h.call("POST", path, { form: { machineId }, token: stranger });
      expect(res.body.hwcode).toBe("04010412");
    }
    const place = await h.call("POST", "/api/machine/machineManualLocation", {
      form: { machineId, lat: 0, lng: 0 },
      token: stranger,
    });
    expect(place.body.hwcode).toBe("04010412");
  });

  it("allows no more than five fixes a day, even asked for all at once", async () => {
    const [other] = await h.provision(await h.login("operator@keyway.local", "operator123"), 1);
    const { id } = await h.addDevice(owner, other, "Parallel");
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        h.call("POST", "/api/machine/machineAutoLocationAddress", {
          form: { machineId: id },
          token: owner,
          lang: "en",
        }),
      ),
    );
    const granted = answers.filter((a) => a.body.hwcode === 0);
    const refused = answers.filter((a) => a.body.hwcode !== 0);
    expect(granted).toHaveLength(LOCATION_REFRESH_PER_DAY);
    expect(refused).toHaveLength(8 - LOCATION_REFRESH_PER_DAY);
    for (const r of refused)
      expect(r.body.msg).toBe("You have run out of location fixes for the day");
  });
});
