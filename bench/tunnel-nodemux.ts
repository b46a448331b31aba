import { type ChildProcess, spawn } from "node:child_process";
import { connect, createServer, type Socket } from "node:net";
import { PROFILE_FLAGS } from "./stats.ts";

/**
 * The second peer of `npm run bench -- tunnel`: the least a reverse tunnel of Keyway's shape
 * can do in Node. An "edge" process takes the browser's TCP connections and carries their
 * bytes over one outbound connection from an "agent" process, which opens one TCP connection
 * to the target per stream: `u32 length | u32 stream id | bytes` frames (an empty frame ends a
 * stream), writes of one tick gathered, the link paused while a reader is full (head-of-line
 * blocking, no per-stream windows), no HTTP parsing, no authentication, no checks. It is ssh -R's shape in Node, with none of the relay's work (the visit, view-only,
 * origin isolation, the activity): what Node itself costs a hop.
 *
 * Run as a script: `edge` prints `{port}` (browsers) once the agent is linked; `agent
 * <linkPort> <targetPort>` dials the edge.
 */

/** Frames written to `link`, gathered per tick (one writev). */
function framer(link: Socket) {
  let corked = false;
  return (id: number, payload?: Buffer) => {
    if (!corked) {
      corked = true;
      link.cork();
      process.nextTick(() => {
        corked = false;
        link.uncork();
      });
    }
    const head = Buffer.allocUnsafe(8);
    head.writeUInt32BE(payload?.length ?? 0, 0);
    head.writeUInt32BE(id, 4);
    const more = link.write(head);
    return payload?.length ? link.write(payload) : more;
  };
}

/** Reads frames from `link`: each one's stream id and bytes (empty: the stream ends). */
function deframer(link: Socket, onFrame: (id: number, payload: Buffer) => void) {
  let pending: Buffer = Buffer.alloc(0);
  link.on("data", (chunk: Buffer) => {
    let data = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (data.length >= 8) {
      const length = data.readUInt32BE(0);
      if (data.length < 8 + length) break;
      onFrame(data.readUInt32BE(4), data.subarray(8, 8 + length));
      data = data.subarray(8 + length);
    }
    pending = data;
  });
}

function edge() {
  const streams = new Map<number, Socket>();
  let send: ReturnType<typeof framer> | null = null;
  let linkSocket: Socket | null = null;
  let next = 1;
  const browsers = createServer((socket) => {
    if (!send) return socket.destroy();
    const id = next++;
    const frame = send;
    streams.set(id, socket);
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      if (!frame(id, chunk) && linkSocket) {
        socket.pause();
        linkSocket.once("drain", () => socket.resume());
      }
    });
    socket.on("end", () => frame(id));
    socket.on("close", () => streams.delete(id));
    socket.on("error", () => {});
  });
  const links = createServer((link) => {
    link.setNoDelay(true);
    linkSocket = link;
    send = framer(link);
    deframer(link, (id, payload) => {
      const socket = streams.get(id);
      if (!socket) return;
      if (!payload.length) return void socket.end();
      if (!socket.write(payload)) {
        link.pause();
        socket.once("drain", () => link.resume());
      }
    });
    browsers.listen(0, "127.0.0.1", () => {
      const address = browsers.address();
      console.log(JSON.stringify({ port: typeof address === "object" && address?.port }));
    });
  });
  links.listen(0, "127.0.0.1", () => {
    const address = links.address();
    console.log(JSON.stringify({ link: typeof address === "object" && address?.port }));
  });
}

function agent(linkPort: number, targetPort: number) {
  const streams = new Map<number, Socket>();
  const link = connect({ host: "127.0.0.1", port: linkPort, noDelay: true });
  const send = framer(link);
  deframer(link, (id, payload) => {
    let socket = streams.get(id);
    if (!socket) {
      const opened = connect({ host: "127.0.0.1", port: targetPort, noDelay: true });
      socket = opened;
      streams.set(id, opened);
      opened.on("data", (chunk: Buffer) => {
        if (!send(id, chunk)) {
          opened.pause();
          link.once("drain", () => opened.resume());
        }
      });
      opened.on("end", () => send(id));
      opened.on("close", () => streams.delete(id));
      opened.on("error", () => {});
    }
    if (!payload.length) return void socket.end();
    if (!socket.write(payload)) {
      link.pause();
      socket.once("drain", () => link.resume());
    }
  });
}

/** Starts both processes; resolves with the port browsers connect to. */
export async function startNodeMux(
  targetPort: number,
): Promise<{ port: number; pids: number[]; stop(): void }> {
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
  };
  const start = (args: string[]) => {
    // BENCH_PROFILE: the floor's profiles beside Keyway's, to compare a hop's work.
    const flags = ["--import", "tsx", ...PROFILE_FLAGS];
    const child = spawn(process.execPath, [...flags, import.meta.filename, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(child);
    return child;
  };
  const lines = (child: ChildProcess, count: number) =>
    new Promise<Array<Record<string, number>>>((resolve, reject) => {
      const seen: Array<Record<string, number>> = [];
      let text = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const parts = text.split("\n");
        text = parts.pop() ?? "";
        for (const part of parts) if (part.trim()) seen.push(JSON.parse(part));
        if (seen.length >= count) resolve(seen);
      });
      child.once("exit", (code) => reject(new Error(`node mux peer exited (${code})`)));
    });
  try {
    const edgeProcess = start(["edge"]);
    const ready = lines(edgeProcess, 2);
    const [{ link }] = await lines(edgeProcess, 1);
    start(["agent", String(link), String(targetPort)]);
    const [, { port }] = await ready;
    return { port, pids: children.map((child) => child.pid ?? 0), stop };
  } catch (error) {
    stop();
    throw error;
  }
}

if (process.argv[1] === import.meta.filename) {
  const [role, linkPort, targetPort] = process.argv.slice(2);
  // Stopped with SIGTERM: an exit of its own, so that --cpu-prof writes its profile.
  process.on("SIGTERM", () => process.exit(0));
  if (role === "edge") edge();
  else if (role === "agent") agent(Number(linkPort), Number(targetPort));
}
