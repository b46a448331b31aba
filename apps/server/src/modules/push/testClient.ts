import { decodePush, PING_FRAME, PUSH_SCENES, type PushFrame } from "@keyway/protocol";
import { WebSocket } from "ws";

/** A real WebSocket client that queues the frames it receives. */
export class PushClient {
  readonly frames: PushFrame[] = [];
  private waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | null = null;
  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data, isBinary) => {
      if (isBinary) this.frames.push(decodePush(new Uint8Array(data as Buffer)));
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<PushClient> {
    const socket = new WebSocket(url, { headers });
    const client = new PushClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    return client;
  }

  /** Pings and waits for the pong: afterwards the server holds this socket as authenticated. */
  async ready(): Promise<void> {
    const before = this.frames.length;
    this.socket.send(PING_FRAME);
    await this.until(() => this.frames.slice(before).some((f) => f.scene === PUSH_SCENES.pong));
    this.frames.splice(before);
  }

  async until(check: () => boolean, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `timed out waiting on the push socket (closed: ${JSON.stringify(this.closed)})`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async next(): Promise<PushFrame> {
    await this.until(() => this.frames.length > 0 || this.closed !== null);
    const frame = this.frames.shift();
    if (!frame) throw new Error(`socket closed: ${JSON.stringify(this.closed)}`);
    return frame;
  }

  async closedWith(): Promise<{ code: number; reason: string }> {
    await this.until(() => this.closed !== null);
    return this.closed as { code: number; reason: string };
  }

  close() {
    this.socket.close();
  }
}
