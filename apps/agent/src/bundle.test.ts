import { describe, expect, it } from "vitest";
import { bundledInputs } from "../build.mjs";

// docs/performance.md, "Issue 19 figures, tenth session": above about 8 MB of heap, V8 follows
// the collections a download's buffers cause with whole-heap ones; zod's classic API alone
// was 40 % of the bundle and put the agent past it.
describe("the agent's bundle", () => {
  it("takes zod's core and mini API, not its classic API, and no protobuf runtime", async () => {
    const inputs = await bundledInputs();
    // The device-facing schemas are in it (the hello and control messages, the MQTT payloads)...
    expect(inputs).toContain("packages/protocol/src/tunnel.ts");
    expect(inputs).toContain("packages/protocol/src/device.ts");
    expect(inputs.some((file) => file.startsWith("node_modules/zod/v4/mini/"))).toBe(true);
    // ...written with zod/mini: nothing of the classic API, nor of the push channel's protobuf.
    expect(inputs.filter((file) => file.startsWith("node_modules/zod/v4/classic/"))).toEqual([]);
    expect(inputs.filter((file) => file.includes("/@bufbuild/"))).toEqual([]);
  });

  it("leaves out mqtt.js's copy of Node's streams, its SOCKS client and its browser timers", async () => {
    const inputs = await bundledInputs();
    // mqtt.js itself and its packet parser are in it...
    expect(inputs.some((file) => file.startsWith("node_modules/mqtt/build/lib/"))).toBe(true);
    expect(inputs.some((file) => file.startsWith("node_modules/mqtt-packet/"))).toBe(true);
    // ...with Node's own streams (no readable-stream, in any folder) and the two stubs.
    expect(
      inputs.filter((file) => /\/(readable-stream|socks|ip-address|smart-buffer)\//.test(file)),
    ).toEqual([]);
    expect(inputs.filter((file) => /^node_modules\/(.*\/)?worker-timers/.test(file))).toEqual([]);
    expect(inputs).toContain("apps/agent/stubs/socks.cjs");
    expect(inputs).toContain("apps/agent/stubs/worker-timers.cjs");
  });
});
