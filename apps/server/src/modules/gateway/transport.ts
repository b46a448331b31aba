import type { Duplex } from "node:stream";
import type { CommandPayload } from "@keyway/protocol";

/** What the gateway needs of a broker: embeddedBroker.ts or externalBroker.ts. */
export interface Transport {
  start(): Promise<void>;
  sendCommand(machineCode: string, command: CommandPayload): Promise<void>;
  isConnected(deviceId: number): boolean;
  /** Whether devices can reach the server through the broker now (readiness). */
  brokerUp(): boolean;
  /** A connection from the HTTP port; `afterLogin` is called once its device is logged in. */
  handleStream?(stream: Duplex, afterLogin?: () => void): void;
  listenTcp?(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}
