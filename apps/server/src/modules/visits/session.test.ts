import { TunnelMux, type TunnelStream } from "@keyway/protocol/mux";
import { describe, expect, it } from "vitest";
import { StreamPool } from "./session.ts";

/**
 * A visit's keep-alive pool over a real tunnel: two muxes joined in memory, the cloud's end
 * opening streams, the device's end accepting them (and, in one test, misbehaving).
 */
function tunnel() {
  const device: TunnelStream[] = [];
  let cloud: TunnelMux;
  const agent = new TunnelMux({
    link: {
      send: (frame, done) => {
        queueMicrotask(() => cloud.receive(frame));
        done();
      },
    },
    onOpen: (stream) => {
      stream.accept();
      stream.resume();
      device.push(stream);
    },
  });
  cloud = new TunnelMux({
    link: {
      send: (frame, done) => {
        queueMicrotask(() => agent.receive(frame));
        done();
      },
    },
  });
  return { open: () => cloud.open(null), device };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 2_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(5);
  }
}

describe("a visit's pool of kept-alive streams", () => {
  it("serves the stream last given back at once, and opens a new one when none is idle", async () => {
    const { open, device } = tunnel();
    const pool = new StreamPool(open, 256, 32, 60_000);
    expect(pool.leaseNow()).toBeNull();
    const first = await pool.lease();
    const second = await pool.lease();
    expect(device).toHaveLength(2);
    pool.release(first, true);
    pool.release(second, true);
    expect(pool.leaseNow()).toBe(second);
    expect(pool.leaseNow()).toBe(first);
    expect(pool.leaseNow()).toBeNull();
    // Not reusable (an answer cut short): closed, never served again.
    pool.release(first, false);
    expect(first.destroyed).toBe(true);
    expect(await pool.lease()).not.toBe(first);
    pool.destroy();
  });

  it("closes each stream once it has been idle for its time, the oldest first", async () => {
    const { open, device } = tunnel();
    const pool = new StreamPool(open, 256, 32, 150);
    const older = await pool.lease();
    const newer = await pool.lease();
    pool.release(older, true);
    await sleep(100);
    pool.release(newer, true);
    await until(() => older.destroyed);
    expect(newer.destroyed).toBe(false);
    await until(() => newer.destroyed);
    // The device's ends close too, and nothing idle is left to serve.
    await until(() => device.every((s) => s.destroyed));
    expect(pool.leaseNow()).toBeNull();
    pool.destroy();
  });

  it("drops an idle stream whose device sends bytes nobody asked for", async () => {
    const { open, device } = tunnel();
    const pool = new StreamPool(open, 256, 32, 60_000);
    const stream = await pool.lease();
    pool.release(stream, true);
    device[0].write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged");
    await until(() => stream.destroyed);
    expect(pool.leaseNow()).toBeNull();
    const next = await pool.lease();
    expect(next).not.toBe(stream);
    pool.destroy();
    expect(next.destroyed).toBe(false);
  });
});
