import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./ports.ts";

// Debian's tigervnc-standalone-server, tigervnc-tools and python3-tk (scripts/system-packages.mjs).
const XVNC = "/usr/bin/Xvnc";
const VNCPASSWD = "/usr/bin/vncpasswd";
// Debian's python3, the one python3-tk gives tkinter to (a python3 first on PATH may lack it).
const PYTHON = "/usr/bin/python3";
const PROGRAM = path.join(import.meta.dirname, "vncProgram.py");
// Becomes the program in argv[1] (same pid) after asking Linux to end it when we end
// (PR_SET_PDEATHSIG = 1): a test runner that kills its worker leaves no X server behind.
const DIE_WITH_PARENT =
  "import ctypes, os, signal, sys; ctypes.CDLL(None).prctl(1, signal.SIGTERM); os.execv(sys.argv[1], sys.argv[1:])";

/** The colours the program paints: the whole screen is one of them. */
export const RED = "#ff0000";
export const GREEN = "#00ff00";

export interface VncOptions {
  width?: number;
  height?: number;
  /** VNC authentication with this password (8 characters at most count); else security None. */
  password?: string;
  /** Alternate red/green every that many milliseconds from the start (the bench). */
  flipEveryMs?: number;
  /** Xvnc's cap on updates a second per client (TigerVNC's default is 60). */
  frameRate?: number;
}

export interface VncServer {
  /** The RFB port on 127.0.0.1. */
  port: number;
  /** The X display number (DISPLAY=:display). */
  display: number;
  width: number;
  height: number;
  password?: string;
  /** The keysyms the program received so far, one a line. */
  typed(): Promise<string>;
  /** Paints the whole screen `#rrggbb`; resolves once the X server has it. */
  setColour(colour: string): Promise<void>;
  /** Alternates red/green every `ms` milliseconds (0 stops); resolves once started. */
  flip(ms: number): Promise<void>;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
// A test that dies before stop() must not leave an X server behind.
process.once("exit", () => {
  for (const child of live) killGroup(child, "SIGKILL");
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    live.delete(child);
    return;
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  killGroup(child, "SIGTERM");
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), 3000);
  await exited;
  clearTimeout(timer);
  live.delete(child);
}

function spawnGroup(command: string, args: string[], options: Parameters<typeof spawn>[2]) {
  // A process group of its own, so stop() ends it and anything it started.
  const child = spawn(command, args, { ...options, detached: true });
  live.add(child);
  return child;
}

/** The obfuscated password file Xvnc reads; the password goes through stdin, never argv. */
async function passwordFile(dir: string, password: string): Promise<string> {
  const file = path.join(dir, "passwd");
  const out = await new Promise<Buffer>((resolve, reject) => {
    const child = spawn(VNCPASSWD, ["-f"], { stdio: ["pipe", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`vncpasswd -f: ${code}`)),
    );
    child.stdin.end(`${password}\n`);
  });
  writeFileSync(file, out, { mode: 0o600 });
  return file;
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("data", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.setTimeout(1000, () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** Starts Xvnc and returns its display number once it takes connections, or null (port taken). */
async function startXvnc(
  dir: string,
  port: number,
  options: Required<Pick<VncOptions, "width" | "height" | "frameRate">>,
  passwd: string | null,
): Promise<{ xvnc: ChildProcess; display: number; port: number } | null> {
  const args = [
    "-displayfd",
    "3",
    "-geometry",
    `${options.width}x${options.height}`,
    "-depth",
    "24",
    "-rfbport",
    String(port),
    "-interface",
    "127.0.0.1",
    "-localhost",
    "-nolisten",
    "tcp",
    "-AlwaysShared",
    "-FrameRate",
    String(options.frameRate),
    "-desktop",
    "keyway-test",
    "-SecurityTypes",
    passwd ? "VncAuth" : "None",
    ...(passwd ? ["-PasswordFile", passwd] : []),
  ];
  const xvnc = spawnGroup(PYTHON, ["-c", DIE_WITH_PARENT, XVNC, ...args], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  let log = "";
  xvnc.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  const fd3 = xvnc.stdio[3] as NodeJS.ReadableStream;
  const display = await new Promise<number | null>((resolve) => {
    let text = "";
    fd3.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(Number.parseInt(text, 10));
    });
    xvnc.once("exit", () => resolve(null));
  });
  if (display === null) {
    live.delete(xvnc);
    // A port taken between freePort() and Xvnc's bind is worth another try; anything else is not.
    if (/socket|address already in use|bind/i.test(log)) return null;
    throw new Error(`Xvnc did not start:\n${log}`);
  }
  for (let i = 0; i < 100 && !(await listening(port)); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  return { xvnc, display, port };
}

/**
 * A real VNC server (TigerVNC's Xvnc) on 127.0.0.1 showing one X program in known colours
 * (vncProgram.py): red at the start, toggling red/green on each key press, logging each key.
 */
export async function startVnc(options: VncOptions = {}): Promise<VncServer> {
  for (const program of [XVNC, PYTHON]) {
    if (!existsSync(program)) throw new Error(`${program} is missing: npm test installs it`);
  }
  const width = options.width ?? 320;
  const height = options.height ?? 200;
  const frameRate = options.frameRate ?? 60;
  const dir = mkdtempSync(path.join(tmpdir(), "kw-vnc-"));
  const password = options.password;
  const passwd = password === undefined ? null : await passwordFile(dir, password);

  let started: Awaited<ReturnType<typeof startXvnc>> = null;
  for (let attempt = 0; attempt < 5 && !started; attempt++) {
    started = await startXvnc(dir, await freePort(), { width, height, frameRate }, passwd);
  }
  if (!started) throw new Error("Xvnc found no free port");
  const { xvnc, display, port } = started;

  const keyLog = path.join(dir, "keys.log");
  const readyFile = path.join(dir, "ready");
  const title = `keyway-vnc-${randomBytes(4).toString("hex")}`;
  const programArgs = [PROGRAM, title, String(width), String(height), keyLog, readyFile];
  const program = spawnGroup(
    PYTHON,
    [...programArgs, String(options.flipEveryMs ?? 0), `:${display}`],
    { cwd: dir, stdio: ["pipe", "pipe", "pipe"] },
  );
  let programLog = "";
  program.stderr?.on("data", (chunk: Buffer) => {
    programLog = (programLog + chunk.toString()).slice(-4000);
  });
  // Each command line gets one "ok" line back, in order.
  const waiting: (() => void)[] = [];
  let pending = "";
  program.stdout?.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    let end = pending.indexOf("\n");
    while (end >= 0) {
      pending = pending.slice(end + 1);
      waiting.shift()?.();
      end = pending.indexOf("\n");
    }
  });

  const stop = async () => {
    program.stdin?.destroy();
    await Promise.all([stopGroup(program), stopGroup(xvnc)]);
    rmSync(dir, { recursive: true, force: true });
  };

  for (let i = 0; !existsSync(readyFile); i++) {
    if (i >= 600 || program.exitCode !== null) {
      await stop();
      throw new Error(`the VNC test program did not show up:\n${programLog}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }

  const command = (line: string) =>
    new Promise<void>((resolve, reject) => {
      if (program.exitCode !== null) return reject(new Error("the VNC test program has ended"));
      waiting.push(resolve);
      program.stdin?.write(`${line}\n`);
    });

  return {
    port,
    display,
    width,
    height,
    ...(password === undefined ? {} : { password }),
    typed: () => readFile(keyLog, "utf8").catch(() => ""),
    setColour: (colour) => {
      if (!/^#[0-9a-f]{6}$/i.test(colour)) throw new Error(`not a #rrggbb colour: ${colour}`);
      return command(`colour ${colour}`);
    },
    flip: (ms) => command(`flip ${Math.max(0, Math.round(ms))}`),
    stop,
  };
}
