import http from "node:http";
import https from "node:https";
import { limitMqttPackets, MQTT_MAX_PACKET } from "@keyway/protocol";
import mqtt, { type MqttClient } from "mqtt";

/** One signed batch of a project's points, ready to leave. */
export interface SignedBatch {
  projectId: number;
  /** The JSON text that was signed (sent byte for byte). */
  body: string;
  /** Epoch seconds, part of the signed text (a receiver refuses stale ones: replay). */
  timestamp: string;
  /** Hex HMAC-SHA256 of `timestamp.body` with the project's key. */
  signature: string;
  /**
   * "<first seq>-<last seq>": the same for a batch sent again after a lost answer, so a
   * receiver can drop what it already acknowledged (an idempotency key).
   */
  batchId: string;
}

/** A way to the project's server; `send` resolves only once the server acknowledged. */
export interface ReportTransport {
  send(batch: SignedBatch): Promise<void>;
  close(): Promise<void>;
}

export interface TransportOptions {
  /** Extra trusted certificate authorities (PEM) for https: and mqtts: servers. */
  ca?: string;
  /** How long one batch may take, the server's whole answer included (ms; 15 s). */
  timeoutMs?: number;
}

/** The topic a project's batches are published on when the URL names none. */
export const defaultReportTopic = (projectId: number) => `keyway/projects/${projectId}/data`;

export const SIGNATURE_HEADER = "x-keyway-signature";
export const TIMESTAMP_HEADER = "x-keyway-timestamp";
export const BATCH_HEADER = "x-keyway-batch";

export function createTransport(server: string, opts: TransportOptions = {}): ReportTransport {
  const url = new URL(server);
  return url.protocol === "mqtt:" || url.protocol === "mqtts:"
    ? mqttTransport(url, opts)
    : httpTransport(url, opts);
}

/** HTTP(S) POST of the JSON batch; any 2xx answer acknowledges it. */
function httpTransport(url: URL, opts: TransportOptions): ReportTransport {
  const secure = url.protocol === "https:";
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: 1, ...(opts.ca && { ca: opts.ca }) })
    : new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = secure ? https.request : http.request;
  const timeoutMs = opts.timeoutMs ?? 15_000;
  return {
    send: (batch) =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          url,
          {
            method: "POST",
            agent,
            headers: {
              "content-type": "application/json",
              "content-length": Buffer.byteLength(batch.body),
              [TIMESTAMP_HEADER]: batch.timestamp,
              [SIGNATURE_HEADER]: `sha256=${batch.signature}`,
              [BATCH_HEADER]: batch.batchId,
            },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              if (text.length < 200) text += chunk;
            });
            res.on("end", () => {
              const status = res.statusCode ?? 0;
              if (status >= 200 && status < 300) resolve();
              else reject(new Error(`HTTP ${status} ${text.trim().slice(0, 120)}`.trim()));
            });
            res.on("error", reject);
          },
        );
        // The whole exchange, not only silences: an idle timeout starts again at every byte, so
        // a receiver trickling its answer would hold this delivery, and the pass with every
        // other project's, for as long as it liked (and past the project's lease).
        const deadline = setTimeout(() => {
          const error = new Error(`no whole answer in ${timeoutMs / 1000} s`);
          reject(error);
          req.destroy(error);
        }, timeoutMs);
        req.once("close", () => clearTimeout(deadline));
        req.on("error", reject);
        req.end(batch.body);
      }),
    close: async () => agent.destroy(),
  };
}

/**
 * MQTT 5 publish at QoS 1 (the PUBACK acknowledges), the signature, timestamp and batch id
 * as user properties. The topic is the URL's path, or keyway/projects/<id>/data. While the
 * broker is away a send fails at once (the queue retries it) rather than waiting in the
 * client. A failed send also ends its client: mqtt.js keeps an unacknowledged QoS 1 publish
 * and sends it again on reconnect, and the queue is already going to send that batch again,
 * so the receiver would get it twice.
 */
function mqttTransport(url: URL, opts: TransportOptions): ReportTransport {
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const path = decodeURIComponent(url.pathname.replace(/^\/+/, ""));
  let current: { client: MqttClient; lastError: string } | undefined;

  function clientOf() {
    if (current) return current;
    const client: MqttClient = mqtt.connect(`${url.protocol}//${url.host}`, {
      protocolVersion: 5,
      clientId: `keyway-report-${Math.random().toString(16).slice(2, 10)}`,
      username: url.username ? decodeURIComponent(url.username) : undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      connectTimeout: Math.min(timeoutMs, 10_000),
      reconnectPeriod: 2_000,
      ...(opts.ca && { ca: opts.ca }),
    });
    const made = { client, lastError: "" };
    client.on("error", (error) => {
      made.lastError = error.message;
    });
    // The customer's broker is not ours: a packet it announces above the limit closes the
    // connection before this node holds its bytes (decision 223).
    limitMqttPackets(client, (announced) => {
      made.lastError = `the broker announced a packet of ${announced} bytes (at most ${MQTT_MAX_PACKET})`;
    });
    current = made;
    return made;
  }

  function discard(made: { client: MqttClient }) {
    if (current === made) current = undefined;
    // Forced: its outgoing store (the unacknowledged publish) goes with it.
    made.client.end(true);
  }

  function connected(made: { client: MqttClient; lastError: string }): Promise<void> {
    const { client } = made;
    if (client.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        client.off("connect", onConnect);
        reject(new Error(`broker not reachable${made.lastError ? `: ${made.lastError}` : ""}`));
      }, 3_000);
      const onConnect = () => {
        clearTimeout(timer);
        resolve();
      };
      client.once("connect", onConnect);
    });
  }

  return {
    async send(batch) {
      const made = clientOf();
      let timer: NodeJS.Timeout | undefined;
      let onClose: (() => void) | undefined;
      try {
        await connected(made);
        await Promise.race([
          made.client.publishAsync(path || defaultReportTopic(batch.projectId), batch.body, {
            qos: 1,
            properties: {
              contentType: "application/json",
              userProperties: {
                [TIMESTAMP_HEADER]: batch.timestamp,
                [SIGNATURE_HEADER]: `sha256=${batch.signature}`,
                [BATCH_HEADER]: batch.batchId,
              },
            },
          }),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error("no PUBACK in time")), timeoutMs);
            // The broker went away with the batch in flight: fail now, not at the timeout.
            onClose = () => {
              const why = made.lastError ? `: ${made.lastError}` : "";
              reject(new Error(`broker connection lost before the PUBACK${why}`));
            };
            made.client.once("close", onClose);
          }),
        ]);
      } catch (error) {
        discard(made);
        throw error;
      } finally {
        clearTimeout(timer);
        if (onClose) made.client.off("close", onClose);
      }
    },
    async close() {
      const made = current;
      current = undefined;
      await made?.client.endAsync(true);
    },
  };
}
