import { describe, expect, it } from "vitest";
import { HW } from "./hwcodes.ts";
import { VALIDATION_MESSAGES } from "./validation.ts";

/** Every refusal the server can give has a real Chinese and a real English text. */
describe("message catalogues", () => {
  const entries = [...Object.entries(HW), ...Object.entries(VALIDATION_MESSAGES)];

  it.each(entries)("%s has a Chinese and an English text", (_key, text) => {
    expect(text.zh).toMatch(/[\u4e00-\u9fa5]/);
    expect(text.en).toMatch(/^[\x20-\x7e]+$/);
    expect(text.en).not.toMatch(/[\u4e00-\u9fa5]/);
  });

  it("gives every hwcode once", () => {
    const codes = Object.values(HW).map((e) =>
      "reason" in e ? `${e.code}:${e.reason}` : String(e.code),
    );
    expect(new Set(codes).size).toBe(codes.length);
  });
});
