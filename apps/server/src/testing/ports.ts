import { createServer } from "node:net";

// Below Linux's ephemeral range (32768–60999): a port found free here cannot be taken in the
// meantime by an outgoing connection (database, SMTP, broker) picking its local port, which
// happened with listen(0) → close → listen again under load.
const FIRST = 20_000;
const SPAN = 12_000;
// A port handed out stays taken for this process: a caller often listens on it only later,
// and two draws of the same number once put a node and its broker on one port.
const handedOut = new Set<number>();

function tryListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A TCP port free on loopback right now, outside the range outgoing connections use. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = FIRST + Math.floor(Math.random() * SPAN);
    if (handedOut.has(port)) continue;
    if (await tryListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error("no free loopback port found");
}
