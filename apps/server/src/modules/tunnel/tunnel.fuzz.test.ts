import { randomBytes } from "node:crypto";
import { request as httpRequest } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import {
  decodeFrame,
  encodeFrame,
  TUNNEL_CLOSE,
  TUNNEL_FRAME,
  TUNNEL_MAX_DATA,
  TUNNEL_MAX_WINDOW,
  TUNNEL_PROTOCOL,
  TUNNEL_RESET,
  TUNNEL_WINDOW,
  type TunnelFrame,
} from "@keyway/protocol";
import { TunnelMux, type TunnelMuxOptions, type TunnelStream } from "@keyway/protocol/mux";
import { type TunnelSocketLink, tunnelOverSocket } from "@keyway/protocol/tunnel-socket";
import type { ProvisionedDevice } from "@keyway/shared";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { TunnelClient } from "../../../../agent/src/tunnel.ts";
import { seedDemo } from "../../seed.ts";
import { createHarness, type Harness } from "../../testing/harness.ts";
import { freePort } from "../../testing/ports.ts";
import {
  encodeControl,
  HOSTILE_ID_MIN,
  hostileControl,
  hostileFrame,
  malformedFrame,
} from "../../testing/tunnelFrames.ts";

/**
 * A hostile agent against the server's real `/tunnel` (the app listening on a port): with a
 * device's valid credentials it sends random and malformed frames, also at the streams the
 * server opened to it. The server must stay up, keep its memory within the windows, drop only
 * that agent's link and only for link-level faults, and keep every other stream working: one
 * on the hostile link itself, and a TCP forward to another device held by the real agent code.
 */

const MiB = 1024 * 1024;

v8.setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap in use after a full collection. */
async function heapUsed(): Promise<number> {
  await new Promise((r) => setImmediate(r));
  gc();
  return process.memoryUsage().heapUsed;
}

let h: Harness;
let port: number;
let owner: string;
let hostileDevice: ProvisionedDevice;
let hostileId: number;
let goodId: number;
let good: TunnelClient;
let echo: Server;
let echoPort: number;

/** How a hostile agent reaches `/tunnel`: today's socket carrier, or a version-1 WebSocket. */
type Carrier = "socket" | "websocket";

/** An agent that speaks the protocol through the real mux, and breaks it on demand. */
class HostileAgent {
  ws: WebSocket | null = null;
  carrier: TunnelSocketLink | null = null;
  mux!: TunnelMux;
  /** The server's frames, in short (DATA frames are not kept on the socket carrier). */
  seen: Array<{ type: TunnelFrame["type"]; id?: number; code?: number } | null> = [];
  violations: string[] = [];
  closed: Promise<number>;
  private opened: Promise<void>;

  constructor(
    device: ProvisionedDevice,
    readonly kind: Carrier = "socket",
  ) {
    const auth = Buffer.from(`${device.machineCode}:${device.deviceSecret}`).toString("base64");
    const options: Omit<TunnelMuxOptions, "link"> = {
      // Streams the server opens: the default target echoes, any other takes and keeps.
      onOpen: (stream, target) => {
        stream.accept();
        if (!target) stream.on("data", (d: Buffer) => stream.write(d));
      },
      onViolation: (reason) => this.violations.push(reason),
    };
    const record = (bytes: Uint8Array | null) => {
      const frame = bytes ? decodeFrame(bytes) : null;
      this.seen.push(
        frame && {
          type: frame.type,
          id: "id" in frame ? frame.id : undefined,
          code: frame.type === "reset" ? frame.code : undefined,
        },
      );
    };
    if (kind === "socket") {
      let closedWith: (code: number) => void = () => {};
      this.closed = new Promise((done) => {
        closedWith = done;
      });
      this.opened = new Promise<void>((done, fail) => {
        const request = httpRequest({
          host: "127.0.0.1",
          port,
          path: "/tunnel",
          headers: {
            authorization: `Basic ${auth}`,
            connection: "Upgrade",
            upgrade: TUNNEL_PROTOCOL,
          },
        });
        request.on("upgrade", (_response, socket, head) => {
          this.carrier = tunnelOverSocket(socket, {
            ...options,
            head,
            onFrame: (bytes) => {
              if (bytes[0] !== TUNNEL_FRAME.close) record(bytes);
            },
            onClose: (code) => closedWith(code),
          });
          this.mux = this.carrier.mux;
          done();
        });
        request.on("response", () => fail(new Error("refused")));
        request.on("error", fail);
        request.end();
      });
      return;
    }
    this.ws = new WebSocket(`ws://127.0.0.1:${port}/tunnel`, {
      headers: { authorization: `Basic ${auth}` },
    });
    const ws = this.ws;
    ws.on("error", () => {});
    this.closed = new Promise((done) => ws.once("close", (code) => done(code)));
    this.mux = new TunnelMux({
      ...options,
      link: {
        send: (frame, done) => {
          if (ws.readyState !== ws.OPEN) return done(new Error("closed"));
          ws.send(frame, { binary: true }, done);
        },
      },
    });
    ws.on("message", (data, isBinary) => {
      record(isBinary ? (data as Buffer) : null);
      if (isBinary) this.mux.receive(data as Buffer);
    });
    ws.on("close", () => this.mux.close());
    this.opened = new Promise<void>((done, fail) => {
      ws.once("open", () => done());
      ws.once("close", () => fail(new Error("refused")));
    });
  }

  /** Up, and the server has its hello. */
  async ready(): Promise<this> {
    await this.opened;
    const allow = [`127.0.0.1:${echoPort}`];
    // It claims "control": its consent answers and visit ends reach the visits module.
    const hello = { version: "hostile", target: allow[0], allow, features: ["control"] };
    this.mux.send({ type: "hello", hello });
    await until(() => h.app.services.tunnels.hello(hostileId)?.version === "hostile");
    return this;
  }

  /** One frame; `binary` false: a WebSocket text message, or on the socket bytes that are no frame. */
  send(frame: Uint8Array, binary = true) {
    if (this.ws) return this.ws.send(frame, { binary });
    if (binary) return this.carrier?.sendFrame(frame);
    // A length shorter than any frame's header.
    this.carrier?.socket.write(Buffer.from([0, 0, 0, frame.byteLength % 5, 3, 0, 0, 0, 1]));
  }

  get open(): boolean {
    return this.ws ? this.ws.readyState === this.ws.OPEN : this.carrier?.closed === false;
  }

  pauseReading(): void {
    if (this.ws) (this.ws as unknown as { _socket: Socket })._socket.pause();
    else this.carrier?.socket.pause();
  }

  close(): void {
    if (this.ws) this.ws.close();
    else this.carrier?.close(1000, "done");
  }

  terminate(): void {
    if (this.ws) this.ws.terminate();
    else this.carrier?.terminate();
  }
}

async function until(check: () => boolean | Promise<boolean>, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends random bytes and waits for all of them to come back. */
function roundTrip(
  send: (bytes: Buffer) => void,
  on: (f: (chunk: Buffer) => void) => () => void,
  size = 1000,
): Promise<boolean> {
  const sent = randomBytes(size);
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    let got = 0;
    const off = on((chunk) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got < size) return;
      off();
      done(Buffer.concat(chunks).equals(sent));
    });
    send(sent);
  });
}

const streamTrip = (stream: TunnelStream, size?: number) => {
  if (stream.destroyed) throw new Error(`stream closed: ${stream.closeError?.message}`);
  return roundTrip(
    (b) => stream.write(b),
    (f) => {
      stream.on("data", f);
      return () => stream.off("data", f);
    },
    size,
  );
};

/** A TCP forward to the good device's echo: a visit of its owner through `/visit-tcp`. */
async function forward() {
  const issued = await h.call("POST", "/api/v1/audit/getValidVisitUrl", {
    form: { machineID: goodId, terminalID: "t", target: `127.0.0.1:${echoPort}` },
    token: owner,
  });
  expect(issued.body.hwcode).toBe(0);
  const ws = new WebSocket(
    `ws://127.0.0.1:${port}/visit-tcp/${issued.body.hwdata.visit_id}?target=127.0.0.1:${echoPort}`,
    { headers: { cloudtoken: owner } },
  );
  await new Promise<void>((done, fail) => {
    ws.once("open", () => done());
    ws.once("error", fail);
  });
  const trip = (size?: number) => {
    if (ws.readyState !== ws.OPEN) throw new Error("the forward closed");
    return roundTrip(
      (b) => ws.send(b),
      (f) => {
        const g = (d: Buffer) => f(d);
        ws.on("message", g);
        return () => ws.off("message", g);
      },
      size,
    );
  };
  return { ws, trip };
}

/** Rewrites a hostile frame's small ids onto the server's own streams (`victims`). */
function aimAt(frame: Uint8Array, victims: number[]): Uint8Array {
  const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
  const id = view.getUint32(1);
  if (victims.length && id >= HOSTILE_ID_MIN && id < HOSTILE_ID_MIN + 25)
    view.setUint32(1, victims[(id - HOSTILE_ID_MIN) % victims.length]);
  return frame;
}

beforeAll(async () => {
  port = await freePort();
  h = await createHarness({ config: { PUBLIC_URL: `http://localhost:${port}` } });
  await h.app.listen({ port, host: "127.0.0.1" });
  echo = createServer((socket: Socket) => socket.on("error", () => {}).pipe(socket));
  await new Promise<void>((done) => echo.listen(0, "127.0.0.1", () => done()));
  echoPort = (echo.address() as { port: number }).port;

  await seedDemo(h.app.services.accounts);
  const operator = await h.login("operator@keyway.local", "operator123", { terminalType: "ops" });
  const [hostile, sound] = await h.provision(operator, 2);
  owner = await h.signUp("owner@example.com");
  hostileDevice = hostile;
  hostileId = (await h.addDevice(owner, hostile, "Hostile")).id;
  goodId = (await h.addDevice(owner, sound, "Sound")).id;

  // The sound device: the agent's own tunnel client, in this process.
  good = new TunnelClient({
    url: `ws://127.0.0.1:${port}/tunnel`,
    code: sound.machineCode,
    secret: sound.deviceSecret,
    target: { host: "127.0.0.1", port: echoPort },
    log: () => {},
  });
  good.start();
  await until(() => Boolean(h.app.services.tunnels.hello(goodId)));
});

afterAll(async () => {
  await good?.stop();
  echo?.close();
  await h?.close();
});

describe.each<Carrier>(["socket", "websocket"])(
  "/tunnel against a hostile agent (%s)",
  { timeout: 120_000 },
  (kind) => {
    it("takes thousands of hostile frames, also at its own streams, within the windows", async () => {
      const tunnels = h.app.services.tunnels;
      const agent = await new HostileAgent(hostileDevice, kind).ready();
      const sound = await tunnels.open(hostileId, null);
      const other = await forward();
      expect(await streamTrip(sound)).toBe(true);
      expect(await other.trip()).toBe(true);
      const before = await heapUsed();
      let sent = 0;
      let peakStreams = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(hostileFrame([`127.0.0.1:${echoPort}`], false), {
            minLength: 50,
            maxLength: 150,
          }),
          async (frames) => {
            // The server's own streams to the hostile agent, never read here: what they are
            // sent is held, within the window, or they are reset.
            const victims: TunnelStream[] = [];
            for (let i = 0; i < 3; i++)
              victims.push(await tunnels.open(hostileId, { host: "10.0.0.1", port: 502 + i }));
            const ids = victims.map((v) => v.id);
            for (const frame of frames) agent.send(aimAt(frame, ids));
            sent += frames.length;
            // Both echoes come back after the server has taken every frame sent before them.
            expect(await streamTrip(sound, 200)).toBe(true);
            expect(await other.trip(200)).toBe(true);
            const stats = tunnels.stats();
            peakStreams = Math.max(peakStreams, stats.streams);
            expect(stats.buffered).toBeLessThanOrEqual(stats.streams * TUNNEL_MAX_WINDOW);
            expect(stats.linkPending).toBeLessThan(2 * MiB);
            for (const victim of victims) victim.destroy();
          },
        ),
        { numRuns: 60 },
      );
      expect(sent).toBeGreaterThan(3000);
      // Stream-level faults only: the hostile agent's link is the same one, still up.
      expect(tunnels.isOnline(hostileId)).toBe(true);
      expect(agent.open).toBe(true);
      expect(agent.seen).not.toContain(null);
      expect(agent.violations).toEqual([]);
      // Streams came and went; none is left behind.
      expect(peakStreams).toBeLessThanOrEqual(2 + 3);
      expect(tunnels.stats().streams).toBe(2);
      expect(tunnels.stats().peakStreamBuffered).toBeLessThanOrEqual(TUNNEL_MAX_WINDOW);
      expect(await streamTrip(sound, 300_000)).toBe(true);
      expect(await other.trip(300_000)).toBe(true);
      expect((await heapUsed()) - before).toBeLessThan(32 * MiB);
      sound.destroy();
      other.ws.close();
      agent.close();
      await agent.closed;
    });

    it("resets a stream sent more than its window, or given more credit than a window", async () => {
      const tunnels = h.app.services.tunnels;
      const agent = await new HostileAgent(hostileDevice, kind).ready();
      const flooded = await tunnels.open(hostileId, { host: "10.0.0.1", port: 502 });
      const overpaid = await tunnels.open(hostileId, { host: "10.0.0.1", port: 503 });
      const chunk = new Uint8Array(TUNNEL_MAX_DATA);
      for (let i = 0; i <= TUNNEL_WINDOW / TUNNEL_MAX_DATA; i++)
        agent.send(encodeFrame({ type: "data", id: flooded.id, data: chunk }));
      agent.send(encodeFrame({ type: "window", id: overpaid.id, increment: TUNNEL_MAX_WINDOW }));
      await until(() => flooded.destroyed && overpaid.destroyed);
      expect(flooded.closeError?.message).toBe("data beyond the window");
      expect(overpaid.closeError?.message).toBe("credit beyond the window");
      // The resets are on their way to the agent when the streams close here.
      const resets = () => agent.seen.filter((f) => f?.type === "reset");
      await until(() => resets().length >= 2);
      expect(resets()).toEqual([
        { type: "reset", id: flooded.id, code: TUNNEL_RESET.protocol },
        { type: "reset", id: overpaid.id, code: TUNNEL_RESET.protocol },
      ]);
      // At most a window was ever held for it.
      expect(tunnels.stats().peakStreamBuffered).toBeLessThanOrEqual(TUNNEL_WINDOW);
      expect(tunnels.isOnline(hostileId)).toBe(true);
      agent.close();
      await agent.closed;
    });

    it("holds a window of 1-byte frames to a stream nobody reads in a few blocks", async () => {
      const tunnels = h.app.services.tunnels;
      const agent = await new HostileAgent(hostileDevice, kind).ready();
      const unread = await tunnels.open(hostileId, { host: "10.0.0.1", port: 502 });
      const before = await heapUsed();
      const frames = Array.from({ length: 256 }, (_, b) =>
        encodeFrame({ type: "data", id: unread.id, data: new Uint8Array([b]) }),
      );
      for (let i = 0; i < TUNNEL_WINDOW; i++) agent.send(frames[i & 0xff]);
      await until(() => unread.unconsumed === TUNNEL_WINDOW);
      expect(unread.destroyed).toBe(false);
      // 262,144 one-byte payloads held as they came would cost far more than their bytes.
      expect((await heapUsed()) - before).toBeLessThan(8 * MiB);
      // And they are all there, in order, for a reader that comes.
      const chunks: Buffer[] = [];
      let bytes = 0;
      unread.on("data", (d: Buffer) => {
        chunks.push(d);
        bytes += d.length;
      });
      await until(() => bytes === TUNNEL_WINDOW);
      const all = Buffer.concat(chunks);
      expect(all.every((b, i) => b === (i & 0xff))).toBe(true);
      agent.close();
      await agent.closed;
    });

    it("drops a hostile link for a frame that does not parse, and only that link", async () => {
      const tunnels = h.app.services.tunnels;
      const other = await forward();
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            malformedFrame.map((bytes) => ({ bytes, binary: true })),
            fc.string({ maxLength: 50 }).map((s) => ({ bytes: Buffer.from(s), binary: false })),
            // Only the server opens streams.
            fc
              .record({ id: fc.nat(), port: fc.integer({ min: 0, max: 65_535 }) })
              .map(({ id, port: p }) => ({
                bytes: encodeFrame({ type: "open", id, window: 1, host: "127.0.0.1", port: p }),
                binary: true,
              })),
            // Only the server asks for consent and says visits ended.
            hostileControl("server").map((m) => ({ bytes: encodeControl(m), binary: true })),
          ),
          async ({ bytes, binary }) => {
            const agent = await new HostileAgent(hostileDevice, kind).ready();
            const sound = await tunnels.open(hostileId, null);
            expect(await streamTrip(sound)).toBe(true);
            agent.send(bytes as Uint8Array, binary);
            expect(await agent.closed).toBe(TUNNEL_CLOSE.protocol);
            expect(sound.destroyed).toBe(true);
            await until(() => !tunnels.isOnline(hostileId));
            expect(tunnels.isOnline(goodId)).toBe(true);
            expect(await other.trip()).toBe(true);
          },
        ),
        { numRuns: 40 },
      );
      other.ws.close();
    });

    it("refuses a frame above 2 MiB before holding it", async () => {
      const tunnels = h.app.services.tunnels;
      const agent = await new HostileAgent(hostileDevice, kind).ready();
      if (kind === "socket") {
        // Only the length is sent: the server refuses it without waiting for (or holding) more.
        const head = Buffer.alloc(9);
        head.writeUInt32BE(3 * MiB, 0);
        head[4] = TUNNEL_FRAME.hello;
        agent.carrier?.socket.write(head);
      } else agent.send(new Uint8Array(3 * MiB));
      // RFC 6455 1009 (message too big) on a WebSocket; the other device's link is untouched.
      expect(await agent.closed).toBe(kind === "socket" ? TUNNEL_CLOSE.protocol : 1009);
      await until(() => !tunnels.isOnline(hostileId));
      expect(tunnels.isOnline(goodId)).toBe(true);
    });

    it("drops an agent that does not read, before the server's replies pile up", async () => {
      const tunnels = h.app.services.tunnels;
      const other = await forward();
      const agent = await new HostileAgent(hostileDevice, kind).ready();
      agent.pauseReading();
      const ping = encodeFrame({ type: "ping", data: new Uint8Array(64) });
      let peak = 0;
      for (let round = 0; round < 60 && tunnels.isOnline(hostileId); round++) {
        for (let i = 0; i < 10_000; i++) agent.send(ping);
        await new Promise((r) => setTimeout(r, 20));
        peak = Math.max(peak, tunnels.stats().linkPending);
      }
      await until(() => !tunnels.isOnline(hostileId));
      expect(peak).toBeLessThanOrEqual(2 * MiB);
      expect(await other.trip()).toBe(true);
      agent.terminate();
      other.ws.close();
    });
  },
);
