import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash as digest,
  randomBytes,
  randomInt,
} from "node:crypto";
import { hash, verify } from "@node-rs/argon2";

/** Algorithm.Argon2id (a const enum, which isolatedModules cannot import). */
const ARGON2ID = 2;

/** Passwords: argon2id with the library's defaults (19 MiB, t=2). */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    return await verify(hashed, password);
  } catch {
    return false;
  }
}

/** An opaque login token: 256 random bits. Only its SHA-256 is stored. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export function hashToken(token: string): string {
  // One call, no Hash object: a relayed request hashes its visit cookie (issue 19).
  return digest("sha256", token, "hex");
}

/**
 * Whether two secrets are the same, in time that depends only on their length (no early
 * exit at the first difference): what byCookieNow compares a visit cookie with.
 */
export function sameSecret(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function randomDigits(count: number): string {
  return String(randomInt(0, 10 ** count)).padStart(count, "0");
}

/** Keyed hash for short secrets (verification codes) so a database dump does not reveal them. */
export function keyedHash(secretKeyHex: string, value: string): string {
  return createHmac("sha256", Buffer.from(secretKeyHex, "hex")).update(value).digest("hex");
}

/**
 * What signs outgoing webhooks and data reports: hex HMAC-SHA256 of `timestamp.body` with
 * the receiver's shared secret (the timestamp is signed too, so a replay can be refused).
 */
export function signedText(secret: string, timestamp: string, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** AES-256-GCM for secrets at rest (camera Secret, project keys). Output: iv.tag.data, base64url. */
export function encryptSecret(secretKeyHex: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(secretKeyHex, "hex"), iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString("base64url")).join(".");
}

export function decryptSecret(secretKeyHex: string, sealed: string): string {
  const [iv, tag, data] = sealed.split(".").map((part) => Buffer.from(part, "base64url"));
  const decipher = createDecipheriv("aes-256-gcm", Buffer.from(secretKeyHex, "hex"), iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString("utf8");
}
