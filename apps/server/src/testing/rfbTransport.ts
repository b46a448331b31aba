import { createCipheriv } from "node:crypto";
import { connect } from "node:net";
import { performance } from "node:perf_hooks";
import WebSocket from "ws";

// The RFB client's (rfbClient.ts) ways to a VNC server, and the VNC authentication response.

/** A byte stream both ways; `onData` gets each chunk with the time it arrived. */
export interface RfbTransport {
  write(data: Buffer): void;
  close(): void;
  onData(listener: (chunk: Buffer, at: number) => void): void;
  onClose(listener: (reason: string) => void): void;
}

export function tcpTransport(port: number, host = "127.0.0.1"): Promise<RfbTransport> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    socket.setNoDelay(true);
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      socket.on("error", () => {});
      resolve({
        write: (data) => socket.write(data),
        close: () => socket.destroy(),
        onData: (listener) =>
          socket.on("data", (chunk: Buffer) => listener(chunk, performance.now())),
        onClose: (listener) => socket.once("close", () => listener("connection closed")),
      });
    });
  });
}

/** A WebSocket carrying RFB in binary messages (noVNC's way). Rejects with the HTTP status. */
export function wsTransport(url: string, protocols: string[] = []): Promise<RfbTransport> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols);
    ws.binaryType = "nodebuffer";
    ws.once("unexpected-response", (_req, res) => {
      reject(new Error(`WebSocket refused: HTTP ${res.statusCode}`));
      res.resume();
      ws.terminate();
    });
    ws.once("error", reject);
    ws.once("open", () => {
      ws.off("error", reject);
      ws.on("error", () => {});
      resolve({
        write: (data) => ws.send(data),
        close: () => ws.close(),
        onData: (listener) => ws.on("message", (data: Buffer) => listener(data, performance.now())),
        onClose: (listener) =>
          ws.once("close", (code, reason) => listener(`WebSocket closed ${code} ${reason}`)),
      });
    });
  });
}

/** The VNC authentication response: the challenge DES-encrypted with the bit-mirrored password. */
export function vncAuthResponse(challenge: Buffer, password: string): Buffer {
  const key = Buffer.alloc(8);
  Buffer.from(password, "latin1").copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i++) {
    let b = key[i];
    let r = 0;
    for (let bit = 0; bit < 8; bit++) {
      r = (r << 1) | (b & 1);
      b >>= 1;
    }
    key[i] = r;
  }
  // OpenSSL 3 leaves single DES to its legacy provider; two-key 3DES with K1 = K2 is DES.
  const cipher = createCipheriv("des-ede-ecb", Buffer.concat([key, key]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(challenge), cipher.final()]);
}
