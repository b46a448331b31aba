import { describe, expect, it } from "vitest";
import { clientVersion, msg, ready, run, serverVersion } from "./rfbTesting.ts";

/**
 * The RFB filter against random sessions and random bytes: whatever a viewer sends and however
 * the reads cut it, a view-only visit's device never receives an input message, and the filter
 * never throws. Seeded, so that a failure can be replayed.
 */

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = ReturnType<typeof prng>;
const int = (random: Random, n: number) => Math.floor(random() * n);

function randomMessage(random: Random): [Buffer, boolean] {
  switch (int(random, 12)) {
    case 0:
      return [msg.setPixelFormat(), false];
    case 1:
      return [
        msg.setEncodings(Array.from({ length: int(random, 40) }, () => int(random, 600) - 400)),
        false,
      ];
    case 2:
      return [msg.updateRequest(int(random, 2)), false];
    case 3:
      return [msg.key(int(random, 0xffff), random() < 0.5), true];
    case 4:
      return [msg.pointer(int(random, 320), int(random, 200), int(random, 0x80)), true];
    case 5:
      return [msg.cutText(Buffer.alloc(int(random, 3000), int(random, 256)), random() < 0.3), true];
    case 6:
      return [msg.continuousUpdates(), false];
    case 7:
      return [msg.fence(Buffer.alloc(int(random, 65), 1)), false];
    case 8:
      return [msg.xvp(int(random, 5)), true];
    case 9:
      return [msg.setDesktopSize(640, 480, int(random, 4)), true];
    case 10:
      return [msg.qemuKey(int(random, 0xffff), random() < 0.5, int(random, 0x100)), true];
    default:
      return [msg.updateRequest(1), false];
  }
}

/** Feeds bytes in random pieces (sometimes single bytes, sometimes large runs). */
function feed(random: Random, bytes: Buffer, into: (piece: Buffer) => void) {
  let at = 0;
  while (at < bytes.length) {
    const size = random() < 0.2 ? 1 : 1 + int(random, random() < 0.5 ? 16 : 4096);
    into(bytes.subarray(at, at + size));
    at += size;
  }
}

describe("the RFB filter, fuzzed", () => {
  it("passes random sessions exactly, dropping exactly the input of view-only ones", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = prng(seed);
      const messages = Array.from({ length: 1 + int(random, 60) }, () => randomMessage(random));
      const all = Buffer.concat(messages.map(([b]) => b));
      const passive = Buffer.concat(messages.filter(([, i]) => !i).map(([b]) => b));
      const inputs = messages.filter(([, i]) => i).length;
      const viewOnly = seed % 2 === 0;
      const r = ready(viewOnly);
      feed(random, all, (piece) => r.filter.fromClient(piece));
      expect(r.seen.failure, `seed ${seed}`).toBe(null);
      expect(r.server().equals(viewOnly ? passive : all), `seed ${seed}`).toBe(true);
      expect(viewOnly ? r.filter.droppedEvents : r.filter.inputEvents).toBe(inputs);
    }
  });

  it("never lets a view-only viewer's random bytes carry input to the device", () => {
    let dropped = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const random = prng(1000 + seed);
      // Valid messages with garbage spliced in: the hostile viewer's best attempts.
      const parts: Buffer[] = [];
      for (let i = int(random, 30); i >= 0; i--) {
        if (random() < 0.7) parts.push(randomMessage(random)[0]);
        else
          parts.push(
            Buffer.from(Array.from({ length: 1 + int(random, 40) }, () => int(random, 256))),
          );
      }
      const hostile = Buffer.concat(parts);
      const r = ready(true);
      feed(random, hostile, (piece) => r.filter.fromClient(piece));
      // What reached the server, read as the server reads it, is whole messages, none of them input.
      const check = ready(false);
      check.filter.fromClient(r.server());
      expect(check.seen.failure, `seed ${seed}`).toBe(null);
      expect(check.filter.inputEvents, `seed ${seed}`).toBe(0);
      expect(check.server().equals(r.server())).toBe(true);
      if (r.filter.droppedEvents > 0 && r.server().length > 0) dropped += 1;
    }
    // Sessions that dropped input and still passed the rest before any garbage ended them.
    expect(dropped).toBeGreaterThan(20);
  });

  it("offers the viewer only None and VNC password, and ends for good when it fails", () => {
    let offered = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const random = prng(5000 + seed);
      const r = run(random() < 0.5);
      const noise = () =>
        Buffer.from(Array.from({ length: int(random, 30) }, () => int(random, 256)));
      const minors = [3, 7, 8] as const;
      const serverMinor = minors[int(random, 3)];
      const clientMinor = minors[int(random, 3)];
      const types = Array.from({ length: int(random, 6) }, () => int(random, 24));
      const serverSide = [
        serverVersion(serverMinor),
        Buffer.from([types.length, ...types]),
        noise(),
      ];
      const clientSide = [clientVersion(clientMinor), noise(), noise()];
      let atFailure: [number, number] | null = null;
      const fed = { server: [] as boolean[], client: [] as boolean[] };
      for (let i = 0; i < 3; i++) {
        for (const side of ["server", "client"] as const) {
          const genuine = random() < 0.8;
          fed[side].push(genuine);
          const bytes = genuine ? (side === "server" ? serverSide : clientSide)[i] : noise();
          feed(random, bytes, (p) =>
            side === "server" ? r.filter.fromServer(p) : r.filter.fromClient(p),
          );
          if (r.seen.failure !== null && !atFailure)
            atFailure = [r.seen.toServer.length, r.seen.toClient.length];
        }
      }
      // A failed session passes nothing more, either way.
      if (atFailure) expect([r.seen.toServer.length, r.seen.toClient.length]).toEqual(atFailure);
      // A 3.7/3.8 session that got as far as its types was offered only those the relay follows.
      const told = r.client();
      if (fed.server[0] && fed.client[0] && fed.server[1] && clientMinor >= 7 && told.length > 12) {
        const n = told[12];
        const list = [...told.subarray(13, 13 + n)];
        expect(
          list.every((t) => t === 1 || t === 2),
          `seed ${seed}`,
        ).toBe(true);
        if (n > 0) offered += 1;
      }
    }
    // The generator reaches the interesting case often enough to mean something.
    expect(offered).toBeGreaterThan(10);
  });
});
