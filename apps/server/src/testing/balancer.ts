import net from "node:net";

/**
 * A round-robin TCP load balancer on loopback, as a stock proxy in front of several nodes
 * does it: each connection goes to the next backend; one that refuses is skipped.
 */
export async function startBalancer(backends: number[]) {
  let next = 0;
  const alive = new Set(backends);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.pause();
    const tryFrom = (tries: number) => {
      const candidates = backends.filter((port) => alive.has(port));
      if (tries >= candidates.length || candidates.length === 0) return client.destroy();
      const port = candidates[next++ % candidates.length];
      const upstream = net.connect(port, "127.0.0.1");
      upstream.once("error", () => tryFrom(tries + 1));
      upstream.once("connect", () => {
        sockets.add(upstream);
        upstream.removeAllListeners("error");
        upstream.on("error", () => client.destroy());
        client.on("error", () => upstream.destroy());
        upstream.on("close", () => {
          sockets.delete(upstream);
          client.destroy();
        });
        client.on("close", () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
    };
    tryFrom(0);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    port: (server.address() as net.AddressInfo).port,
    /** A backend taken out (a dead node): its connections are cut, new ones skip it. */
    remove(port: number) {
      alive.delete(port);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
