import { randomBytes, randomInt } from "node:crypto";
import type { ProvisionedDevice } from "@keyway/shared";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { Clock } from "../../infra/clock.ts";
import { hashPassword, hashToken } from "../../infra/crypto.ts";
import { type Device, deviceLinks, devices } from "./schema.ts";

const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; // Crockford base32: no I, L, O, U
const PASSWORD_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";

function randomFrom(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** "KW-XXXXX-XXXXX": 50 random bits, easy to read aloud and type. */
function newMachineCode(): string {
  return `KW-${randomFrom(CODE_ALPHABET, 5)}-${randomFrom(CODE_ALPHABET, 5)}`;
}

/** A device row by its machine code (hashes included: for the password check). */
export async function deviceByCode(db: Db, code: string): Promise<Device | undefined> {
  const [device] = await db.select().from(devices).where(eq(devices.code, code)).limit(1);
  return device;
}

/** Whether someone owns the device personally (its Akey; at most one, device_links_one_akey). */
export async function hasAkey(db: Db, deviceId: number): Promise<boolean> {
  const [akey] = await db
    .select({ id: deviceLinks.id })
    .from(deviceLinks)
    .where(and(eq(deviceLinks.deviceId, deviceId), eq(deviceLinks.role, "akey")))
    .limit(1);
  return akey !== undefined;
}

/** The operator's registry: machine codes issued with their secret and password. */
export function createDeviceRegistry(deps: { db: Db; clock: Clock }) {
  const { db, clock } = deps;

  async function provision(count: number, model = ""): Promise<ProvisionedDevice[]> {
    const issued: ProvisionedDevice[] = [];
    const now = clock.now();
    // Hash in small parallel batches: argon2 runs on libuv's pool.
    for (let start = 0; start < count; start += 8) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(8, count - start) }, async () => {
          // Hex: 256 bits that no command line mistakes for an option (base64url may start with "-").
          const deviceSecret = randomBytes(32).toString("hex");
          const devicePassword = randomFrom(PASSWORD_ALPHABET, 10);
          return {
            machineCode: newMachineCode(),
            deviceSecret,
            devicePassword,
            model,
            passwordHash: await hashPassword(devicePassword),
          };
        }),
      );
      const rows = await db
        .insert(devices)
        .values(
          batch.map((b) => ({
            code: b.machineCode,
            model,
            secretHash: hashToken(b.deviceSecret),
            passwordHash: b.passwordHash,
            createdAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ code: devices.code });
      const inserted = new Set(rows.map((r) => r.code));
      for (const b of batch) {
        if (inserted.has(b.machineCode)) {
          issued.push({
            machineCode: b.machineCode,
            deviceSecret: b.deviceSecret,
            devicePassword: b.devicePassword,
            model,
          });
        }
      }
    }
    // A code collision (1 in 2^50) just issues one fewer; top up.
    if (issued.length < count) issued.push(...(await provision(count - issued.length, model)));
    return issued;
  }

  return { provision, findByCode: (code: string) => deviceByCode(db, code) };
}
