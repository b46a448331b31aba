import { type OutboxEntry, tokenInfoQuery } from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { ok } from "../../http/envelope.ts";
import type { Notifier } from "./service.ts";

/** The operator reads the outbox: what the platform sent, or would have sent. */
export function notifyRoutes(
  app: FastifyInstance,
  deps: { notifier: Notifier; operator: preHandlerAsyncHookHandler },
) {
  app.withTypeProvider<ZodTypeProvider>().get(
    "/api/operator/v1/outbox",
    {
      schema: {
        tags: ["operator"],
        summary: "Outgoing e-mails and SMS",
        querystring: tokenInfoQuery,
      },
      preValidation: deps.operator,
    },
    async (request) => {
      const { list, total } = await deps.notifier.listOutbox(
        request.query.page,
        request.query.pageSize,
      );
      return ok({
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
      });
    },
  );
}
