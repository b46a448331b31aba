import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { ok, registerEnvelope } from "./envelope.ts";

describe("the envelope", () => {
  const app = Fastify();
  registerEnvelope(app);
  const names = Array.from({ length: 3000 }, (_, i) => `一号线 HMI ${i} 😀`);
  app.get("/short", async () => ok({ list: names.slice(0, 2) }));
  app.get("/long", async () => ok({ list: names }));
  afterAll(() => app.close());

  it("sends a long answer with Chinese text whole, its length in bytes, as JSON", async () => {
    const base = await app.listen({ port: 0, host: "127.0.0.1" });
    for (const [path, list] of [
      ["/short", names.slice(0, 2)],
      ["/long", names],
    ] as const) {
      const res = await fetch(`${base}${path}`, { headers: { "accept-language": "zh-CN" } });
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
      expect(JSON.parse(bytes.toString("utf8"))).toEqual({
        hwcode: 0,
        hwdata: { list },
        msg: "成功",
      });
    }
  });
});
