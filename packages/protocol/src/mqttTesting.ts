import { createServer, type Socket, connect as tcpConnect } from "node:net";

/** CONNACK, accepted: MQTT 3.1.1 and MQTT 5 (with its empty properties). */
export const CONNACK = {
  v4: Buffer.from([0x20, 0x02, 0x00, 0x00]),
  v5: Buffer.from([0x20, 0x03, 0x00, 0x00, 0x00]),
};

/**
 * For tests, a hostile MQTT server on loopback: to each connection's first bytes it answers
 * `connack`, then announces a PUBLISH of 128 MiB (topic "kw") and trickles its body, 512 bytes
 * every 50 ms, for as long as the client keeps the connection. `cutAfter`: for each closed
 * connection, the ms from the announcement to the close.
 */
export async function startHugePacketServer(connack: Buffer) {
  const cutAfter: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("data", () => {
      socket.write(connack);
      socket.write(Buffer.from([0x30, 0x80, 0x80, 0x80, 0x40, 0x00, 0x02, 0x6b, 0x77]));
      const announced = Date.now();
      const trickle = setInterval(() => socket.write(Buffer.alloc(512)), 50);
      socket.once("close", () => {
        clearInterval(trickle);
        sockets.delete(socket);
        cutAfter.push(Date.now() - announced);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : 0,
    cutAfter,
    /** Waits (up to `timeoutMs`) until `n` connections were closed. */
    async cut(n: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (cutAfter.length < n && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 25));
      return cutAfter;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A CONNECT's remaining length of 128 MiB, as its four length bytes. */
export const HUGE_LENGTH = [0x80, 0x80, 0x80, 0x40] as const;

/**
 * For tests, a hostile MQTT client: it connects to a broker on loopback, announces a CONNECT
 * whose body is `remainingLength` (its length bytes) and streams `chunks` of 16 KiB zeros, less
 * than it announced, so the packet never completes. Resolves with the ms until the broker
 * closed the connection.
 */
export function sendHugeConnect(
  port: number,
  remainingLength: readonly number[] = HUGE_LENGTH,
  chunks = 0,
): Promise<number> {
  const hostile = tcpConnect(port, "127.0.0.1");
  hostile.on("error", () => {});
  const started = Date.now();
  const closed = new Promise<number>((resolve) =>
    hostile.once("close", () => resolve(Date.now() - started)),
  );
  hostile.write(Buffer.from([0x10, ...remainingLength]));
  const zeros = Buffer.alloc(16 * 1024);
  for (let i = 0; i < chunks && !hostile.destroyed; i++) hostile.write(zeros);
  return closed;
}
