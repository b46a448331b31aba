import { and, eq, inArray, ne } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { projects } from "../projects/schema.ts";
import { featureOn } from "./reportable.ts";
import { createTransport, type ReportTransport, type TransportOptions } from "./transports.ts";

export type ReportConnections = ReturnType<typeof createReportConnections>;

/** This node's connections to the projects' report servers, one per project and server. */
export function createReportConnections(deps: { db: Db; transport?: TransportOptions }) {
  const { db } = deps;
  const transports = new Map<number, { server: string; transport: ReportTransport }>();

  function close(projectId: number) {
    const known = transports.get(projectId);
    if (!known) return;
    transports.delete(projectId);
    void known.transport.close().catch(() => {});
  }

  /**
   * Ends the connections of projects that no longer report (deleted, switched off, no server
   * or the feature off): an MQTT client would otherwise stay connected to the old broker.
   * Run on each pass, so a change made through another node is seen too.
   */
  async function closeIdle() {
    if (transports.size === 0) return;
    const ids = [...transports.keys()];
    const live = await db
      .select({ id: projects.id, server: projects.server })
      .from(projects)
      .where(
        and(
          inArray(projects.id, ids),
          eq(projects.reportState, true),
          ne(projects.server, ""),
          featureOn,
        ),
      );
    const serverOf = new Map(live.map((p) => [p.id, p.server]));
    for (const id of ids) if (serverOf.get(id) !== transports.get(id)?.server) close(id);
  }

  /** The project's connection to `server` (a new one when its server changed). */
  function transportFor(projectId: number, server: string): ReportTransport {
    const known = transports.get(projectId);
    if (known?.server === server) return known.transport;
    if (known) void known.transport.close().catch(() => {});
    const transport = createTransport(server, deps.transport);
    transports.set(projectId, { server, transport });
    return transport;
  }

  async function closeAll() {
    await Promise.all([...transports.values()].map((t) => t.transport.close().catch(() => {})));
    transports.clear();
  }

  return { close, closeIdle, transportFor, closeAll };
}
