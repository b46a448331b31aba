import { describe, expect, it } from "vitest";
import { type AnswerHead, type AnswerMemo, AnswerReader } from "./answer.ts";

/** Feeds `bytes` to a reader in pieces of `cut` bytes; what it reported. */
function read(text: string | Buffer, cut = 1_000_000, method = "GET", memo?: AnswerMemo) {
  const out = {
    head: null as AnswerHead | null,
    body: "",
    end: null as boolean | null,
    error: null as string | null,
  };
  const reader = new AnswerReader(
    method,
    {
      head: (h) => {
        out.head = h;
      },
      body: (piece) => {
        out.body += piece.toString("latin1");
      },
      end: (reusable, last) => {
        if (last) out.body += last.toString("latin1");
        out.end = reusable;
      },
      error: (message) => {
        out.error = message;
      },
    },
    memo,
  );
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, "latin1");
  for (let i = 0; i < bytes.length; i += cut) reader.push(bytes.subarray(i, i + cut));
  return { out, reader };
}

describe("the device's answer, head only", () => {
  it("passes a Content-Length body on and frees the stream, however the reads cut it", () => {
    for (const cut of [1, 2, 7, 1000]) {
      const { out } = read("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello", cut);
      expect(out.head).toMatchObject({ status: 200, statusMessage: "OK", keepAlive: true });
      expect(out.head?.rawHeaders).toEqual(["Content-Length", "5", "X-A", "b"]);
      expect(out.body).toBe("hello");
      expect(out.end).toBe(true);
    }
  });

  it("de-chunks a chunked body, with extensions and trailers", () => {
    for (const cut of [1, 3, 1000]) {
      const { out } = read(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nT: 1\r\n\r\n",
        cut,
      );
      expect(out.body).toBe("hello world");
      expect(out.end).toBe(true);
    }
  });

  it("skips interim answers, and knows answers without a body", () => {
    const { out } = read("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n");
    expect(out.head?.status).toBe(204);
    expect(out.end).toBe(true);
    const head = read("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", 1000, "HEAD");
    expect(head.out.end).toBe(true);
  });

  it("reads to the end of the stream when nothing frames the body, and does not reuse it", () => {
    const { out, reader } = read("HTTP/1.0 200 OK\r\n\r\nall of it");
    expect(out.end).toBe(null);
    reader.end();
    expect(out.body).toBe("all of it");
    expect(out.end).toBe(false);
  });

  it("does not reuse a stream the device closes or sends more on", () => {
    expect(read("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx").out.end).toBe(
      false,
    );
    expect(read("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxy").out.end).toBe(false);
    expect(
      read(
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
      ).out.end,
    ).toBe(false);
  });

  it("refuses what is not a sound answer", () => {
    for (const bad of [
      "SSH-2.0-OpenSSH\r\n\r\n",
      "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy\r\n",
      "HTTP/1.1 101 Switching Protocols\r\n\r\n",
    ]) {
      const { out } = read(bad);
      expect(out.error, bad).not.toBe(null);
      expect(out.end, bad).toBe(null);
    }
    expect(read(`HTTP/1.1 200 OK\r\nX: ${"a".repeat(70_000)}`).out.error).toContain("64 KiB");
    const cut = read("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    cut.reader.end();
    expect(cut.out.error).toBe("the answer was cut short");
  });
});

describe("a stream's repeated answer head", () => {
  it("reads the same as when read anew, and a changed byte is read anew", () => {
    const memo: AnswerMemo = { text: "", parsed: null };
    const answer = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello";
    const again = (text: string, method = "GET") => read(text, 1_000_000, method, memo).out;
    const first = again(answer);
    expect(read(answer, 3, "GET", memo).out).toEqual(first);
    expect(memo.text).not.toBe("");
    // HEAD: the same head has no body this time.
    expect(again(answer.replace("hello", ""), "HEAD")).toMatchObject({ body: "", end: true });
    expect(again(answer.replace("5", "6").replace("hello", "hello!")).body).toBe("hello!");
    expect(again(answer.replace("X-A:", "X-A :")).error).toBe("a malformed header in the answer");
  });
});
