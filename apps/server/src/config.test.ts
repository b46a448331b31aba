import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("configuration", () => {
  it("gives the embedded set-up by default and keeps one generated secret key", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "kw-config-"));
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config).toMatchObject({
      PORT: 8080,
      MQTT_PORT: 1883,
      SMS_PROVIDER: "outbox",
      PUBLIC_URL: "http://localhost:8080",
      DEMO: true,
    });
    // Unset: the embedded database and the local outbox.
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.SECRET_KEY).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(path.join(dataDir, "secret.key"), "utf8").trim()).toBe(config.SECRET_KEY);
    expect(loadConfig({ DATA_DIR: dataDir }).SECRET_KEY).toBe(config.SECRET_KEY);
    expect(loadConfig({ DATA_DIR: dataDir, PORT: "9090" }).PUBLIC_URL).toBe(
      "http://localhost:9090",
    );
  });

  it("fails fast with every bad value named", () => {
    const bad = () =>
      loadConfig({
        PORT: "http",
        DATABASE_URL: "mysql://x",
        SECRET_KEY: "short",
        SMS_PROVIDER: "carrier-pigeon",
      });
    expect(bad).toThrow(ConfigError);
    try {
      bad();
    } catch (error) {
      const message = (error as Error).message;
      for (const name of ["PORT", "DATABASE_URL", "SECRET_KEY", "SMS_PROVIDER"])
        expect(message).toContain(name);
    }
  });
});
