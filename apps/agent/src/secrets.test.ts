import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resolveSecret, SecretError, type SecretSources } from "./secrets.ts";

const dir = mkdtempSync(join(tmpdir(), "kw-secret-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode); // whatever the umask made of it
  return path;
}

const base: SecretSources = {
  what: "device secret",
  option: "secret",
  envName: "KEYWAY_AGENT_SECRET",
  env: {},
};
const resolve = (extra: Partial<SecretSources>) => resolveSecret({ ...base, ...extra });
const refusal = (extra: Partial<SecretSources>) => {
  try {
    resolve(extra);
  } catch (error) {
    expect(error).toBeInstanceOf(SecretError);
    return (error as Error).message;
  }
  throw new Error("not refused");
};

describe("the device secret's sources", () => {
  it("reads a file of mode 600 without a warning, minus its final newline", () => {
    const path = file("ok", "s3cret\n");
    expect(resolve({ file: path })).toEqual({
      value: "s3cret",
      from: "--secret-file",
      warnings: [],
    });
    expect(resolve({ file: file("crlf", "  s3cret\r\n") }).value).toBe("s3cret");
  });

  it("warns about a file the group or everyone can read, and still uses it", () => {
    for (const [mode, shown] of [
      [0o644, "644"],
      [0o640, "640"],
      [0o604, "604"],
    ] as const) {
      const path = file(`open-${shown}`, "s3cret", mode);
      const secret = resolve({ file: path });
      expect(secret.value).toBe("s3cret");
      expect(secret.warnings).toEqual([
        `--secret-file ${path} can be read by other users (mode ${shown}); restrict it: chmod 600 ${path}`,
      ]);
    }
    // Owner-only variants are fine; Windows has no such modes to judge.
    expect(resolve({ file: file("owner-rw", "s", 0o400) }).warnings).toEqual([]);
    expect(resolve({ file: file("win", "s", 0o644), platform: "win32" }).warnings).toEqual([]);
  });

  it("prefers the command line to the environment, and refuses both flags at once", () => {
    const env = { KEYWAY_AGENT_SECRET: "from-env" };
    expect(resolve({ env }).value).toBe("from-env");
    expect(resolve({ env, file: file("wins", "from-file") }).value).toBe("from-file");
    const flag = resolve({ env, value: "from-flag" });
    expect(flag.value).toBe("from-flag");
    // Still accepted, but told why not.
    expect(flag.warnings[0]).toMatch(/--secret puts the device secret on the command line.*\(ps\)/);
    expect(refusal({ value: "a", file: file("both", "b") })).toBe(
      "give only one of --secret and --secret-file",
    );
  });

  it("refuses a missing, empty or unreadable secret with what to do instead", () => {
    expect(refusal({})).toBe(
      "the device secret is required: --secret-file PATH (a file of mode 600) or the " +
        "KEYWAY_AGENT_SECRET environment variable (--secret VALUE works too, but shows it to " +
        "every local user)",
    );
    expect(refusal({ env: { KEYWAY_AGENT_SECRET: " " } })).toBe(
      "KEYWAY_AGENT_SECRET is set but empty",
    );
    expect(refusal({ value: "" })).toBe("--secret must not be empty");
    const missing = join(dir, "nope");
    expect(refusal({ file: missing })).toBe(
      `--secret-file ${missing}: cannot read it (no such file)`,
    );
    const empty = file("empty", "\n");
    expect(refusal({ file: empty })).toBe(`--secret-file ${empty}: the file is empty`);
    const folder = join(dir, "folder");
    mkdirSync(folder);
    expect(refusal({ file: folder })).toBe(`--secret-file ${folder}: not a file`);
    // A JSON file (demo-agent.json) or two lines is not a secret file.
    const twoLines = file("two", "a\nb\n");
    expect(refusal({ file: twoLines })).toBe(
      `--secret-file ${twoLines}: the file must hold only the device secret, on one line`,
    );
  });

  it("names the forward command's token the same way", () => {
    const token = { what: "login token", option: "token", envName: "KEYWAY_AGENT_TOKEN", env: {} };
    expect(refusal(token)).toMatch(
      /^the login token is required: --token-file PATH .* KEYWAY_AGENT_TOKEN/,
    );
    expect(resolve({ ...token, env: { KEYWAY_AGENT_TOKEN: "t" } }).value).toBe("t");
  });
});
