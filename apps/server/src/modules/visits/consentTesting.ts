import http from "node:http";
import type { LookupFunction } from "node:net";
import { AGENT_FEATURE_CONTROL, TUNNEL_PROTOCOL, type TunnelControl } from "@keyway/protocol";
import { type TunnelSocketLink, tunnelOverSocket } from "@keyway/protocol/tunnel-socket";
import type { ProvisionedDevice } from "@keyway/shared";
import { WebSocket } from "ws";
import { until } from "../../testing/until.ts";

/**
 * Helpers of the on-site consent tests: requests the way a browser on this machine makes
 * them (every `*.localhost` is loopback, as in Chromium), and an agent of the test's own on
 * the real `/tunnel` that says what the test wants on the control channel.
 */

export const lookup = ((_host, options, callback) => {
  if ((options as { all?: boolean }).all) callback(null, [{ address: "127.0.0.1", family: 4 }]);
  else (callback as (e: null, a: string, f: number) => void)(null, "127.0.0.1", 4);
}) as LookupFunction;

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export function request(
  url: string,
  options: { method?: string; cookie?: string; json?: unknown } = {},
): Promise<Answer> {
  return new Promise((done, fail) => {
    const headers: Record<string, string> = {};
    if (options.cookie) headers.cookie = options.cookie;
    if (options.json !== undefined) headers["content-type"] = "application/json";
    const req = http.request(
      url,
      { method: options.method ?? "GET", lookup, headers, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          body += d;
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    req.end(options.json === undefined ? undefined : JSON.stringify(options.json));
  });
}

/** Opens a visit URL (its one-time ticket) and returns the visit's origin and cookie. */
export async function openVisit(url: string): Promise<{ origin: string; cookie: string }> {
  const first = await request(url);
  if (first.status !== 302) throw new Error(`visit not opened: ${first.status} ${first.body}`);
  const cookie = (first.headers["set-cookie"]?.[0] ?? "").split(";")[0];
  return { origin: new URL(url).origin, cookie };
}

/** A WebSocket of a page of the visit (Origin: the visit host), as a browser opens it. */
export function openWebSocket(origin: string, cookie: string, path: string): Promise<WebSocket> {
  const ws = new WebSocket(`${origin.replace(/^http/, "ws")}${path}`, {
    lookup,
    origin,
    headers: { cookie },
  } as ConstructorParameters<typeof WebSocket>[2]);
  return new Promise((done, fail) => {
    ws.once("open", () => done(ws));
    ws.once("error", fail);
  });
}

export { until };

/**
 * An agent of the test's own on `/tunnel` with a device's real credentials: it says hello
 * (with "control" unless told otherwise) and sends whatever control messages it is given.
 */
export class ScriptedAgent {
  link!: TunnelSocketLink;
  /** Control messages the server sent it. */
  heard: TunnelControl[] = [];
  closed: Promise<number>;
  private closedWith: (code: number) => void = () => {};

  constructor(
    private readonly port: number,
    private readonly device: ProvisionedDevice,
    private readonly features: string[] = [AGENT_FEATURE_CONTROL],
  ) {
    this.closed = new Promise((done) => {
      this.closedWith = done;
    });
  }

  async connect(): Promise<this> {
    const { machineCode, deviceSecret } = this.device;
    const auth = Buffer.from(`${machineCode}:${deviceSecret}`).toString("base64");
    await new Promise<void>((done, fail) => {
      const req = http.request({
        host: "127.0.0.1",
        port: this.port,
        path: "/tunnel",
        headers: {
          authorization: `Basic ${auth}`,
          connection: "Upgrade",
          upgrade: TUNNEL_PROTOCOL,
        },
      });
      req.on("upgrade", (_res, socket, head) => {
        this.link = tunnelOverSocket(socket, {
          head,
          onOpen: (stream) => stream.refuse(1, "scripted agent"),
          onControl: (message) => this.heard.push(message),
          onClose: (code) => this.closedWith(code),
        });
        done();
      });
      req.on("response", (res) => fail(new Error(`refused: ${res.statusCode}`)));
      req.on("error", fail);
      req.end();
    });
    this.link.mux.send({
      type: "hello",
      hello: { version: "scripted", target: "127.0.0.1:9", allow: [], features: this.features },
    });
    return this;
  }

  send(message: TunnelControl): void {
    this.link.mux.send({ type: "control", message });
  }

  get open(): boolean {
    return !this.link.closed;
  }

  close(): void {
    this.link.close(1000, "done");
  }
}
