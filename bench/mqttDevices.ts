/**
 * Simulated devices for the benchmarks' load generators: raw MQTT connections (mqtt-packet
 * over net sockets: a real client's bytes without a full client's memory), publishing with
 * QoS 1 and settling each publish on its PUBACK.
 */
import { type Socket, connect as tcpConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import mqttPacket from "mqtt-packet";

export interface DeviceConnection {
  socket: Socket;
  code: string;
  /** PUBACK waiters by message id. */
  pending: Map<number, () => void>;
  nextId: number;
}

/**
 * Connects as device `code` (password: its device secret) and resolves on CONNACK; over TLS
 * (`tls`: the CA to trust and the name to ask for) as devices reach a deployed broker.
 */
export function openDevice(
  port: number,
  code: string,
  secret: string,
  tls?: { ca: Buffer; servername: string },
): Promise<DeviceConnection> {
  return new Promise((resolve, reject) => {
    const socket = tls
      ? tlsConnect({ host: "127.0.0.1", port, ca: tls.ca, servername: tls.servername })
      : tcpConnect(port, "127.0.0.1");
    const parser = mqttPacket.parser();
    const conn: DeviceConnection = { socket, code, pending: new Map(), nextId: 0 };
    parser.on("packet", (packet) => {
      if (packet.cmd === "connack") {
        if (packet.returnCode === 0 || packet.reasonCode === 0) resolve(conn);
        else reject(new Error(`connack ${packet.returnCode}`));
      } else if (packet.cmd === "puback" && packet.messageId !== undefined) {
        conn.pending.get(packet.messageId)?.();
        conn.pending.delete(packet.messageId);
      }
    });
    socket.on("data", (chunk) => parser.parse(chunk));
    socket.on("error", reject);
    socket.write(
      mqttPacket.generate({
        cmd: "connect",
        protocolId: "MQTT",
        protocolVersion: 4,
        clean: true,
        clientId: code,
        keepalive: 600,
        username: code,
        password: Buffer.from(secret),
      }),
    );
  });
}

/** Publishes with QoS 1 on the device's own topic; resolves on the broker's PUBACK. */
export function publish(conn: DeviceConnection, topic: string, payload: string): Promise<void> {
  conn.nextId = (conn.nextId % 65000) + 1;
  const id = conn.nextId;
  return new Promise<void>((resolve) => {
    conn.pending.set(id, resolve);
    conn.socket.write(
      mqttPacket.generate({
        cmd: "publish",
        topic: `kw/v1/${conn.code}/${topic}`,
        payload,
        qos: 1,
        messageId: id,
        retain: false,
        dup: false,
      }),
    );
  });
}

/** Runs `task` for 0..count-1 with at most `limit` at once. */
export async function pool<T>(
  count: number,
  limit: number,
  task: (i: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}
