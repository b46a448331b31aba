import { connect, createServer } from "node:net";
import { parseArgs } from "node:util";

/**
 * A bare TCP relay for `npm run bench -- tunnel`, in its own process: every connection is
 * piped to `--to` (port on loopback), nothing else. Two of them in a row are the floor for
 * any relay with the tunnel's shape (browser → server → agent → target): what the hops
 * themselves cost on this machine, before any work of ours. Prints its port.
 */
const { values } = parseArgs({ options: { to: { type: "string" } } });
const to = Number(values.to);
const server = createServer((inbound) => {
  inbound.setNoDelay(true);
  const outbound = connect({ host: "127.0.0.1", port: to });
  outbound.setNoDelay(true);
  inbound.pipe(outbound);
  outbound.pipe(inbound);
  inbound.on("error", () => outbound.destroy());
  outbound.on("error", () => inbound.destroy());
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 }));
});
