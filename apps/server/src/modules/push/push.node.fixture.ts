/**
 * One Keyway server node for redis.test.ts, run as its own process:
 * `node --import tsx push.node.fixture.ts '<json>'` where the JSON argument carries
 *   redisUrl     the shared Redis (required),
 *   databaseUrl  a PostgreSQL database shared by the nodes; absent: in-memory PGlite,
 *   seed         true: create the test user and its two terminals (fixed tokens).
 * (An argument, not environment variables: config.ts alone reads those.)
 * Without a shared database every node seeds the same user into its own fresh database, so
 * the ids and tokens agree (docs/architecture/push.md#several-nodes). It prints one JSON line when listening
 * (`{port, userId, terminalIds, tokens}`), then takes JSON commands on stdin, one a line:
 * `{"op":"toUser"|"toTerminal","id":N,"push":{scene,body}}` or `{"op":"count"}`, answering
 * each with a JSON line. It stops when stdin closes.
 */
import { createInterface } from "node:readline";
import type { PushMessage } from "@keyway/protocol";
import { eq, inArray } from "drizzle-orm";
import { buildApp } from "../../app.ts";
import { testConfig } from "../../config.ts";
import { openDatabase } from "../../db/client.ts";
import { hashToken } from "../../infra/crypto.ts";
import { terminals, users } from "../accounts/schema.ts";

const FIXTURE_USER = {
  email: "push-nodes@example.com",
  tokens: ["push-node-token-phone-0000000000000000", "push-node-token-tablet-000000000000000"],
} as const;

const options = JSON.parse(process.argv[2] ?? "{}") as {
  redisUrl?: string;
  databaseUrl?: string;
  seed?: boolean;
};
const redisUrl = options.redisUrl;
if (!redisUrl) throw new Error("redisUrl is required");
const database = await openDatabase({ url: options.databaseUrl });
const app = await buildApp({
  config: testConfig({ WEB_DIST: "/nonexistent", REDIS_URL: redisUrl }),
  db: database.db,
  logger: false,
  sweepEveryMs: 0,
});

if (options.seed) {
  const user = await app.services.accounts.createActivatedUser({
    account: { channel: "email", email: FIXTURE_USER.email },
    password: "secret123",
    name: "Nodes",
  });
  const now = new Date();
  await database.db.insert(terminals).values(
    FIXTURE_USER.tokens.map((token, i) => ({
      userId: user.id,
      tokenHash: hashToken(token),
      uuid: `push-node-${i}`,
      type: "web",
      name: `terminal ${i}`,
      loginTime: now,
      expiresAt: new Date(now.getTime() + 86_400_000),
    })),
  );
}
const [user] = await database.db.select().from(users).where(eq(users.email, FIXTURE_USER.email));
const rows = await database.db
  .select({ id: terminals.id, tokenHash: terminals.tokenHash })
  .from(terminals)
  .where(inArray(terminals.tokenHash, FIXTURE_USER.tokens.map(hashToken)));
const terminalIds = FIXTURE_USER.tokens.map(
  (token) => rows.find((row) => row.tokenHash === hashToken(token))?.id,
);

const address = await app.listen({ port: 0, host: "127.0.0.1" });
const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
say({
  port: Number(new URL(address).port),
  userId: user.id,
  terminalIds,
  tokens: FIXTURE_USER.tokens,
});

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const command = JSON.parse(line) as
    | { op: "toUser" | "toTerminal"; id: number; push: PushMessage }
    | { op: "count" };
  const { push } = app.services;
  if (command.op === "count") return say({ count: push.socketCount() });
  push[command.op](command.id, command.push);
  say({ done: command.op });
});
lines.on("close", async () => {
  await app.close();
  await database.close();
  process.exit(0);
});
