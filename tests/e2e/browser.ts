import path from "node:path";
import { type Browser, chromium } from "playwright-core";
import { buildApp } from "../../apps/server/src/app.ts";
import { testConfig } from "../../apps/server/src/config.ts";
import { createTestDatabase } from "../../apps/server/src/db/testing.ts";
import { createSenders } from "../../apps/server/src/infra/senders.ts";
import { seedDemo } from "../../apps/server/src/seed.ts";
import { startSmtpServer } from "../../apps/server/src/testing/smtp.ts";

export const WEB_DIST = path.resolve(import.meta.dirname, "../../apps/web/dist");

/** Debian's Chromium with the flags this sandbox needs (no background network). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * The real platform on a free port: built web app, real database, real SMTP server that
 * receives the codes, and Chromium.
 */
export async function startPlatform() {
  const smtp = await startSmtpServer();
  const database = await createTestDatabase();
  const app = await buildApp({
    config: testConfig({ SMTP_URL: smtp.url, WEB_DIST }),
    db: database.db,
    senders: createSenders({ smtpUrl: smtp.url, mailFrom: "Keyway <no-reply@keyway.local>" }),
    logger: false,
  });
  await seedDemo(app.services.accounts);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const browser = await launchChromium();
  return {
    app,
    db: database.db,
    smtp,
    browser,
    port,
    url: (pathname: string, host = "localhost") => `http://${host}:${port}${pathname}`,
    async close() {
      await browser.close();
      await app.close();
      await database.close();
      await smtp.close();
    },
  };
}
