import { API, type OutboxEntry } from "@keyway/shared";
import type { Serve } from "../../http/routes.ts";
import type { Notifier } from "./service.ts";

/** The operator reads the outbox (packages/shared/src/contract/notify.ts). */
export function notifyRoutes(serve: Serve, { notifier }: { notifier: Notifier }) {
  serve(API.notify.listOutbox, async ({ input }) => {
    const { list, total } = await notifier.listOutbox(input.page, input.pageSize);
    return {
      list: list.map(
        (n): OutboxEntry => ({
          id: n.id,
          channel: n.channel,
          recipient: n.recipient,
          subject: n.subject,
          body: n.body,
          status: n.status,
          createdAt: n.createdAt.toISOString(),
        }),
      ),
      total,
    };
  });
}
