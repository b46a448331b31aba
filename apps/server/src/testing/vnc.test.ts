import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { RfbClient, tcpTransport, vncAuthResponse } from "./rfbClient.ts";
import { GREEN, RED, startVnc, type VncServer } from "./vnc.ts";

// The fixture the screen tests and the bench stand on: a real Xvnc, a real X program, and our
// RFB client reading real pixels from it.
let vnc: VncServer | undefined;
const clients: RfbClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await vnc?.stop();
  vnc = undefined;
});

async function open(server: VncServer, password?: string): Promise<RfbClient> {
  const client = await RfbClient.connect(await tcpTransport(server.port), { password });
  clients.push(client);
  return client;
}

describe("VNC test fixture", () => {
  it("computes the VNC authentication response with DES on the bit-mirrored password", () => {
    // FIPS 81's DES vector: key 01…01 (0x80 mirrored), zero block → 8CA64DE9C1B123A7.
    const response = vncAuthResponse(Buffer.alloc(16), "\x80".repeat(8));
    expect(response.toString("hex")).toBe("8ca64de9c1b123a7".repeat(2));
  });

  it("shows the program in red, and a key press reaches it and turns the screen green", async () => {
    vnc = await startVnc();
    const client = await open(vnc);
    expect([client.width, client.height]).toEqual([320, 200]);
    await client.refresh();
    expect(client.share(RED)).toBeGreaterThan(0.9);
    expect(await vnc.typed()).toBe("");

    client.press(0x61); // "a"
    await client.untilColour(GREEN);
    expect(client.pixel(160, 100)).toBe(GREEN);
    expect(await vnc.typed()).toBe("a\n");
    client.press(0x62); // "b": back to red
    await client.untilColour(RED);
    expect(await vnc.typed()).toBe("a\nb\n");
  });

  it("asks for the password when given one, and refuses a wrong one before any input", async () => {
    vnc = await startVnc({ password: "s3cret!x" });
    await expect(open(vnc)).rejects.toThrow(/no usable security type/);
    await expect(open(vnc, "wrong")).rejects.toThrow(/authentication failed/i);
    const client = await open(vnc, "s3cret!x");
    await client.refresh();
    expect(client.share(RED)).toBeGreaterThan(0.9);
    client.press(0x7a); // "z"
    await client.untilColour(GREEN);
    expect(await vnc.typed()).toBe("z\n");
  });

  it("paints a colour asked for and flips the whole screen on demand", async () => {
    vnc = await startVnc({ width: 640, height: 400 });
    const client = await open(vnc);
    await vnc.setColour("#0000ff");
    await client.untilColour("#0000ff");
    await vnc.flip(20);
    await client.untilColour(RED);
    await client.untilColour(GREEN);
    await vnc.flip(0);
    expect(await vnc.typed()).toBe("");
  });

  it("leaves no X server, port or socket behind once stopped", async () => {
    vnc = await startVnc();
    const { display, port } = vnc;
    const socket = `/tmp/.X11-unix/X${display}`;
    expect(existsSync(socket)).toBe(true);
    await vnc.stop();
    vnc = undefined;
    expect(existsSync(socket)).toBe(false);
    await expect(tcpTransport(port)).rejects.toThrow(/ECONNREFUSED/);
  });

  it("leaves no X server behind when the test process is killed without stopping it", async () => {
    const script = `const { startVnc } = await import(${JSON.stringify(`${import.meta.dirname}/vnc.ts`)});
      const vnc = await startVnc(); console.log(vnc.display, vnc.port);`;
    // Its temporary files in a directory of ours: the killed process cannot remove them.
    const tmp = mkdtempSync(path.join(tmpdir(), "kw-vnc-killed-"));
    onTestFinished(() => rmSync(tmp, { recursive: true, force: true }));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, TMPDIR: tmp } },
    );
    const line = await new Promise<string>((resolve) => {
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(out);
      });
    });
    const [display, port] = line.trim().split(" ").map(Number);
    expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(true);
    child.kill("SIGKILL");
    // Xvnc gets SIGTERM from the kernel when its parent dies and removes its socket on the way out.
    for (let i = 0; i < 100 && existsSync(`/tmp/.X11-unix/X${display}`); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(existsSync(`/tmp/.X11-unix/X${display}`)).toBe(false);
    await expect(tcpTransport(port)).rejects.toThrow(/ECONNREFUSED/);
  });
});
