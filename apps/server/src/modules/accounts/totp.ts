import { createHmac } from "node:crypto";
import { TWO_FACTOR } from "@keyway/shared";

// ---- RFC 4648 base32 and RFC 6238 TOTP (HMAC-SHA1, dynamic truncation of RFC 4226) ----

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string): Buffer {
  const clean = text.toUpperCase().replace(/[\s=-]/g, "");
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error("not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The 30-second step a moment falls in (RFC 6238 T, with T0 = 0). */
export function totpStep(at: Date, periodSeconds: number = TWO_FACTOR.periodSeconds): number {
  return Math.floor(at.getTime() / 1000 / periodSeconds);
}

/** HOTP of RFC 4226 for one counter value: what an authenticator app shows for that step. */
export function totpCode(
  secret: Uint8Array,
  step: number,
  digits: number = TWO_FACTOR.digits,
): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", secret).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The otpauth:// URI authenticator apps read from the QR (Key Uri Format). */
export function otpauthUrl(issuer: string, account: string, secretBase32: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const query = new URLSearchParams({
    secret: secretBase32,
    issuer,
    algorithm: "SHA1",
    digits: String(TWO_FACTOR.digits),
    period: String(TWO_FACTOR.periodSeconds),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}
