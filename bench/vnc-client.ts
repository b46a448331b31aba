import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import {
  RfbClient,
  type RfbTransport,
  tcpTransport,
  wsTransport,
} from "../apps/server/src/testing/rfbClient.ts";
import { GREEN, RED } from "../apps/server/src/testing/vnc.ts";
import { percentile } from "./stats.ts";

/**
 * The viewer side of `npm run bench -- vnc`, in its own process: an RFB session (Raw
 * encoding only) straight to the VNC server (`--port`) or through the relay's screen
 * WebSocket (`--url`). Phase 1: `--frames` full-screen updates in a row (a non-incremental
 * request, the whole framebuffer received, the next request): frames a second. Phase 2:
 * `--presses` key presses, each toggling the program's full-screen colour, an incremental
 * request waiting: key press → first byte of the update showing the new colour, and → the
 * screen complete. Prints one JSON line.
 */
const { values } = parseArgs({
  options: {
    port: { type: "string" },
    url: { type: "string" },
    frames: { type: "string" },
    presses: { type: "string" },
  },
});
const frames = Number(values.frames ?? 300);
const presses = Number(values.presses ?? 200);
const transport: RfbTransport = values.url
  ? await wsTransport(values.url)
  : await tcpTransport(Number(values.port));
const client = await RfbClient.connect(transport);
const screenBytes = client.width * client.height * 4;

/** Ends the process when the returned timer is not cleared within 10 s: a stalled path. */
function guard(what: string): NodeJS.Timeout {
  return setTimeout(() => {
    console.error(`vnc-client: ${what} within 10 s (${client.closed ?? "session open"})`);
    process.exit(1);
  }, 10_000);
}

/** One full-screen update: refuses an answer that is not the whole screen in Raw. */
async function fullFrame(): Promise<void> {
  const bytesBefore = client.bytesRead;
  const watchdog = guard("no full-screen update");
  await client.refresh();
  clearTimeout(watchdog);
  const got = client.bytesRead - bytesBefore;
  if (got < screenBytes) throw new Error(`a full update carried ${got} of ${screenBytes} bytes`);
}

for (let i = 0; i < 5; i++) await fullFrame(); // warm-up
const started = performance.now();
for (let i = 0; i < frames; i++) await fullFrame();
const seconds = (performance.now() - started) / 1000;

// The program starts red and toggles on each key: know where it is before pressing.
let colour = client.share(RED) > 0.9 ? RED : GREEN;
await client.untilColour(colour);
const firstByte: number[] = [];
const complete: number[] = [];
for (let i = 0; i < presses + 5; i++) {
  const next = colour === RED ? GREEN : RED;
  // An incremental request waits at the server until something changes.
  client.requestUpdate(true);
  // A key the path drops (a view-only visit) would leave this waiting for ever.
  const watchdog = guard(`key press ${i} changed nothing`);
  const pressedAt = performance.now();
  client.press(0x61); // "a"
  let first = Number.NaN;
  for (;;) {
    const update = await client.nextUpdate();
    // An update still drawing the last colour (its label, say) is not this key's answer.
    if (Number.isNaN(first) && client.pixel(client.width >> 1, client.height >> 1) === next)
      first = update.firstByteAt;
    if (client.share(next) > 0.9) break;
    client.requestUpdate(true);
  }
  clearTimeout(watchdog);
  if (i >= 5) {
    firstByte.push(first - pressedAt);
    complete.push(performance.now() - pressedAt);
  }
  colour = next;
}
client.close();
console.log(
  JSON.stringify({
    fps: frames / seconds,
    mbPerSecond: (frames * screenBytes) / 1024 / 1024 / seconds,
    firstByteP50: percentile(firstByte, 50),
    firstByteP99: percentile(firstByte, 99),
    completeP50: percentile(complete, 50),
    completeP99: percentile(complete, 99),
    width: client.width,
    height: client.height,
  }),
);
process.exit(0);
