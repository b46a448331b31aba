import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import type { Db } from "./db/client.ts";
import type { Clock } from "./infra/clock.ts";
import type { AccountService } from "./modules/accounts/service.ts";
import { deviceLinks, devices } from "./modules/devices/schema.ts";
import type { DeviceService } from "./modules/devices/service.ts";

/** The demo accounts of the embedded set-up (printed at start; see README). */
export const DEMO_ACCOUNTS = {
  operator: { email: "operator@keyway.local", password: "operator123", name: "Operator" },
  user: { email: "demo@keyway.local", password: "demo1234", name: "Demo User" },
} as const;

/** Creates the demo operator and user when they do not exist yet. */
export async function seedDemo(accounts: AccountService): Promise<void> {
  for (const [role, account] of Object.entries(DEMO_ACCOUNTS)) {
    const ref = { channel: "email" as const, email: account.email };
    if (await accounts.findUser(ref)) continue;
    await accounts.createActivatedUser({
      account: ref,
      password: account.password,
      name: account.name,
      role: role === "operator" ? "operator" : "user",
    });
  }
}

/** The demo device's 4G card: a plain 1 GB monthly plan on the simulator (no warnings). */
export const DEMO_ICCID = "89860400000000000101";

export interface DemoDevice {
  machineCode: string;
  deviceSecret: string;
  devicePassword: string;
}

/**
 * The demo device: provisioned once, added to the demo user as Akey, its credentials kept
 * in DATA_DIR/demo-device.json so that `npm start` can run a simulated HMI as that device.
 */
export async function seedDemoDevice(deps: {
  db: Db;
  clock: Clock;
  accounts: AccountService;
  devices: DeviceService;
  dataDir: string;
}): Promise<DemoDevice> {
  const file = path.join(deps.dataDir, "demo-device.json");
  let demo: DemoDevice | undefined;
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, "utf8")) as DemoDevice;
    const [known] = await deps.db
      .select({ id: devices.id })
      .from(devices)
      .where(eq(devices.code, saved.machineCode));
    if (known) demo = saved;
  }
  if (!demo) {
    const [issued] = await deps.devices.provision(1, "MT8071iE");
    demo = {
      machineCode: issued.machineCode,
      deviceSecret: issued.deviceSecret,
      devicePassword: issued.devicePassword,
    };
    writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  }
  const user = await deps.accounts.findUser({ channel: "email", email: DEMO_ACCOUNTS.user.email });
  const [device] = await deps.db.select().from(devices).where(eq(devices.code, demo.machineCode));
  // Its 4G card, read from the simulator carrier (IOT_CARRIER's default): the simulated HMI
  // reports no ICCID of its own.
  if (device && device.iccid === "")
    await deps.db.update(devices).set({ iccid: DEMO_ICCID }).where(eq(devices.id, device.id));
  if (user && device) {
    const [linked] = await deps.db
      .select({ id: deviceLinks.id })
      .from(deviceLinks)
      .where(and(eq(deviceLinks.deviceId, device.id), eq(deviceLinks.role, "akey")));
    if (!linked) {
      await deps.db.insert(deviceLinks).values({
        deviceId: device.id,
        userId: user.id,
        role: "akey",
        name: "Demo HMI",
        remark: "Simulated by keyway-agent",
        createdAt: deps.clock.now(),
      });
    }
  }
  return demo;
}
