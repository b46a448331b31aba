import http from "node:http";

/**
 * The device's web server for `npm run bench -- tunnel`, in its own process: `/bytes?n=`
 * streams n bytes with backpressure, `/small` answers 100 bytes. Prints its port.
 */
const chunk = Buffer.alloc(64 * 1024, 0x61);
const small = Buffer.alloc(100, 0x62);
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://target");
  if (url.pathname === "/small") {
    res.writeHead(200, { "content-type": "text/plain", "content-length": small.length });
    res.end(small);
    return;
  }
  const total = Number(url.searchParams.get("n") ?? 0);
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": total });
  let sent = 0;
  const pump = () => {
    while (sent < total) {
      const piece = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
      sent += piece.length;
      if (!res.write(piece)) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === "object" && address ? address.port : 0 }));
});
