import { describe, expect, it } from "vitest";
import { RFB_MAX_CUT_TEXT } from "./rfb.ts";
import { clientVersion, cut, handshake38, msg, ready, run, serverVersion } from "./rfbTesting.ts";

/** A session of every message noVNC sends; input ones flagged. */
function everything() {
  const list: Array<[Buffer, boolean]> = [
    [msg.setPixelFormat(), false],
    [msg.setEncodings([7, 16, 0, -223, -258, -308, -309, -312, -313, -1063131698]), false],
    [msg.updateRequest(0), false],
    [msg.key(0x61, true), true],
    [msg.key(0x61, false), true],
    [msg.pointer(10, 20, 1), true],
    [msg.cutText("copied text"), true],
    [msg.cutText(Buffer.from([0x10, 0, 0, 0x01]), true), true],
    [msg.continuousUpdates(), false],
    [msg.fence(Buffer.from("abc")), false],
    [msg.xvp(4), true],
    [msg.setDesktopSize(640, 480, 2), true],
    [msg.qemuKey(0x62, true, 0x30), true],
    [msg.updateRequest(1), false],
  ];
  return {
    all: Buffer.concat(list.map(([b]) => b)),
    passive: Buffer.concat(list.filter(([, input]) => !input).map(([b]) => b)),
    inputs: list.filter(([, input]) => input).length,
  };
}

describe("the RFB handshake through the relay", () => {
  it("narrows the server's security types to None and VNC password", () => {
    const r = run(false);
    r.filter.fromServer(serverVersion(8));
    r.filter.fromClient(clientVersion(8));
    r.filter.fromServer(Buffer.from([4, 19, 2, 16, 1]));
    expect(r.client()).toEqual(Buffer.concat([serverVersion(8), Buffer.from([2, 2, 1])]));
    expect(r.server()).toEqual(clientVersion(8));
    // VNC password: the 16-byte response goes to the server, then ClientInit.
    r.filter.fromClient(Buffer.from([2]));
    r.filter.fromServer(Buffer.alloc(16, 7));
    const response = Buffer.alloc(16, 9);
    r.filter.fromClient(Buffer.concat([response, Buffer.from([1])]));
    expect(r.server()).toEqual(
      Buffer.concat([clientVersion(8), Buffer.from([2]), response, Buffer.from([1])]),
    );
    expect(r.filter.running).toBe(true);
    expect(r.seen.failure).toBe(null);
  });

  it("tells the viewer in RFB's words when no type it can follow is offered", () => {
    const r = run(false);
    r.filter.fromServer(serverVersion(8));
    r.filter.fromClient(clientVersion(8));
    r.filter.fromServer(Buffer.from([2, 19, 16]));
    expect(r.seen.failure).toContain("security types 19, 16");
    const told = r.client().subarray(12);
    expect(told[0]).toBe(0);
    const length = told.readUInt32BE(1);
    expect(told.subarray(5, 5 + length).toString()).toContain("None (1) and VNC password (2)");
    expect(r.server()).toEqual(clientVersion(8));

    // 3.3: the server's single choice.
    const old = run(false);
    old.filter.fromServer(serverVersion(3));
    old.filter.fromClient(clientVersion(3));
    old.filter.fromServer(Buffer.from([0, 0, 0, 16]));
    expect(old.seen.failure).toContain("security type 16");
    expect(old.client().subarray(12, 16)).toEqual(Buffer.alloc(4));
  });

  it("follows 3.3 and 3.7 as well as 3.8", () => {
    const old = run(true);
    old.filter.fromServer(serverVersion(3));
    old.filter.fromClient(clientVersion(3));
    old.filter.fromServer(Buffer.concat([Buffer.from([0, 0, 0, 2]), Buffer.alloc(16, 1)]));
    old.filter.fromClient(Buffer.concat([Buffer.alloc(16, 2), Buffer.from([0])]));
    old.filter.fromClient(msg.key(0x61, true));
    old.filter.fromClient(msg.updateRequest());
    // The key dropped; ClientInit made shared (a view-only visitor disconnects nobody).
    expect(old.server()).toEqual(
      Buffer.concat([clientVersion(3), Buffer.alloc(16, 2), Buffer.from([1]), msg.updateRequest()]),
    );
    expect(old.filter.droppedEvents).toBe(1);

    // 3.7 with None: no SecurityResult, ClientInit at once.
    const mid = run(false);
    mid.filter.fromServer(serverVersion(7));
    mid.filter.fromClient(clientVersion(7));
    mid.filter.fromServer(Buffer.from([1, 1]));
    mid.filter.fromClient(Buffer.concat([Buffer.from([1, 0]), msg.key(0x61, true)]));
    expect(mid.server()).toEqual(
      Buffer.concat([clientVersion(7), Buffer.from([1, 0]), msg.key(0x61, true)]),
    );
    expect(mid.filter.inputEvents).toBe(1);
  });

  it("passes the server's own refusal and its reason on", () => {
    const r = run(false);
    r.filter.fromServer(serverVersion(8));
    r.filter.fromClient(clientVersion(8));
    const refusal = Buffer.concat([Buffer.from([0, 0, 0, 0, 4]), Buffer.from("busy")]);
    r.filter.fromServer(refusal);
    expect(r.client()).toEqual(Buffer.concat([serverVersion(8), refusal]));
    r.filter.fromClient(Buffer.from([1, 0, 4, 1, 0, 0]));
    expect(r.server()).toEqual(clientVersion(8));
    expect(r.seen.failure).toBe(null);
  });

  it("refuses what it cannot follow", () => {
    const cases: Array<[string, (r: ReturnType<typeof run>) => void]> = [
      ["not RFB", (r) => r.filter.fromServer(Buffer.from("HTTP/1.1 200 OK\r\n\r\n"))],
      ["RFB 2", (r) => r.filter.fromServer(Buffer.from("RFB 002.000\n"))],
      [
        "a viewer's odd version",
        (r) => {
          r.filter.fromServer(serverVersion(8));
          r.filter.fromClient(Buffer.from("RFB 003.005\n"));
        },
      ],
      [
        "a viewer later than the server",
        (r) => {
          r.filter.fromServer(serverVersion(3));
          r.filter.fromClient(clientVersion(8));
        },
      ],
      [
        "a type not offered",
        (r) => {
          r.filter.fromServer(serverVersion(8));
          r.filter.fromClient(clientVersion(8));
          r.filter.fromServer(Buffer.from([2, 1, 2]));
          r.filter.fromClient(Buffer.from([16]));
        },
      ],
      ["a viewer talking before the server", (r) => r.filter.fromClient(Buffer.alloc(5000, 4))],
    ];
    for (const [what, feed] of cases) {
      const r = run(false);
      feed(r);
      expect(r.seen.failure, what).not.toBe(null);
    }
  });
});

describe("the viewer's messages", () => {
  it("all pass for a visitor who may write, and are counted", () => {
    const { all, inputs } = everything();
    const r = ready(false);
    r.filter.fromClient(all);
    expect(r.server()).toEqual(all);
    expect(r.filter.inputEvents).toBe(inputs);
    expect(r.filter.droppedEvents).toBe(0);
  });

  it("lose every input for a view-only visitor, the rest passing untouched", () => {
    const { all, passive, inputs } = everything();
    const r = ready(true);
    r.filter.fromClient(all);
    expect(r.server()).toEqual(passive);
    expect(r.filter.droppedEvents).toBe(inputs);
    expect(r.filter.inputEvents).toBe(0);
    expect(r.seen.failure).toBe(null);
  });

  it("come out the same however the reads cut them", () => {
    const { all, passive } = everything();
    for (const viewOnly of [false, true]) {
      for (let at = 1; at < all.length; at++) {
        const r = ready(viewOnly);
        for (const piece of cut(all, [at])) r.filter.fromClient(piece);
        expect(r.server(), `cut at ${at}`).toEqual(viewOnly ? passive : all);
      }
      const bytewise = ready(viewOnly);
      for (let i = 0; i < all.length; i++) bytewise.filter.fromClient(all.subarray(i, i + 1));
      expect(bytewise.server()).toEqual(viewOnly ? passive : all);
    }
  });

  it("follow the handshake however the reads cut it", () => {
    const h = handshake38([16, 1, 2]);
    const client = Buffer.concat(h.fromClient);
    const server = Buffer.concat(h.fromServer);
    for (let at = 1; at < client.length; at++) {
      const r = run(false);
      // Each side's bytes as the other's arrive: the server's version, the viewer's, the types…
      const c = cut(client, [at]);
      r.filter.fromServer(server.subarray(0, 12));
      r.filter.fromClient(c[0]);
      r.filter.fromServer(server.subarray(12));
      r.filter.fromClient(c[1]);
      r.filter.fromClient(msg.key(0x61, true));
      expect(r.filter.running, `cut at ${at}`).toBe(true);
      expect(r.server()).toEqual(Buffer.concat([client, msg.key(0x61, true)]));
      expect(r.client()).toEqual(
        Buffer.concat([serverVersion(8), Buffer.from([2, 1, 2]), server.subarray(16)]),
      );
    }
  });

  it("apply a level change from the next message on, both ways", () => {
    let viewOnly = false;
    const r = ready(() => viewOnly);
    r.filter.fromClient(msg.key(0x61, true));
    viewOnly = true;
    r.filter.fromClient(Buffer.concat([msg.key(0x62, true), msg.pointer(1, 1)]));
    viewOnly = false;
    r.filter.fromClient(msg.key(0x63, true));
    expect(r.server()).toEqual(Buffer.concat([msg.key(0x61, true), msg.key(0x63, true)]));
    expect([r.filter.inputEvents, r.filter.droppedEvents]).toEqual([2, 2]);
  });

  it("pass a clipboard text on as it arrives, never holding it whole", () => {
    const text = Buffer.alloc(RFB_MAX_CUT_TEXT, 0x41);
    const whole = msg.cutText(text);
    const r = ready(false);
    r.filter.fromClient(whole.subarray(0, 1000));
    expect(r.server()).toEqual(whole.subarray(0, 1000));
    r.filter.fromClient(whole.subarray(1000));
    // (equals: a deep comparison of a megabyte takes seconds)
    expect(r.server().equals(whole)).toBe(true);

    const dropped = ready(true);
    dropped.filter.fromClient(whole.subarray(0, 5000));
    dropped.filter.fromClient(Buffer.concat([whole.subarray(5000), msg.updateRequest()]));
    expect(dropped.server()).toEqual(msg.updateRequest());
    expect(dropped.filter.droppedEvents).toBe(1);
  });

  it("know the longer pointer event once the viewer asked for extended buttons", () => {
    const r = ready(true);
    r.filter.fromClient(msg.setEncodings([0, -316]));
    r.filter.fromClient(
      Buffer.concat([msg.pointerExtended(5, 5, 0x100), msg.updateRequest(), msg.pointer(1, 1)]),
    );
    expect(r.server()).toEqual(Buffer.concat([msg.setEncodings([0, -316]), msg.updateRequest()]));
    expect(r.filter.droppedEvents).toBe(2);
  });

  it("end the session on a hostile viewer's message, passing nothing of it", () => {
    const hostile: Array<[string, Buffer]> = [
      ["an unknown type", Buffer.from([77, 0, 0, 0])],
      ["a clipboard above the cap", msg.cutText(Buffer.alloc(RFB_MAX_CUT_TEXT + 1))],
      ["a clipboard length of -2^31", Buffer.from([6, 0, 0, 0, 0x80, 0, 0, 0])],
      ["a fence above 64 bytes", msg.fence(Buffer.alloc(65))],
      ["a QEMU message other than keys", Buffer.from([255, 1, 0, 0])],
    ];
    for (const [what, bytes] of hostile) {
      const r = ready(false);
      r.filter.fromClient(Buffer.concat([msg.updateRequest(), bytes]));
      expect(r.seen.failure, what).not.toBe(null);
      expect(r.server(), what).toEqual(Buffer.alloc(0));
      // Nothing after it either.
      r.filter.fromClient(msg.key(0x61, true));
      expect(r.server()).toEqual(Buffer.alloc(0));
    }
  });
});
