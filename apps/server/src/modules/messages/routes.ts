import {
  idField,
  messageClearBody,
  messagePageBody,
  messageReadBody,
  msgCenterBody,
  totalUnreadQuery,
} from "@keyway/shared";
import type { FastifyInstance, preHandlerAsyncHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { callerOf } from "../../http/auth.ts";
import { ok } from "../../http/envelope.ts";
import { requestLang } from "../../http/lang.ts";
import type { MessageService } from "./service.ts";

/** SPEC §7 "Messages": the message centre's inbox and outbox. */
export function messageRoutes(
  app: FastifyInstance,
  deps: { messages: MessageService; auth: preHandlerAsyncHookHandler },
) {
  const { messages, auth } = deps;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ["messages"];

  r.post(
    "/api/msg/v1/page",
    {
      schema: { tags, summary: "A page of the inbox or outbox", body: messagePageBody.nullish() },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await messages.page(
          callerOf(request).userId,
          requestLang(request),
          request.body ?? messagePageBody.parse({}),
        ),
      ),
  );

  r.post(
    "/api/user/getMsgCenterMsgs",
    {
      schema: {
        tags,
        summary: "Inbox messages of one type (msgwhat)",
        body: msgCenterBody.nullish(),
      },
      preValidation: auth,
    },
    async (request) =>
      ok(
        await messages.page(callerOf(request).userId, requestLang(request), {
          box: "inbox",
          type: request.body?.msgwhat,
          page: 1,
          pageSize: 100,
        }),
      ),
  );

  r.get(
    "/api/msg/v1/totalUnread",
    {
      schema: { tags, summary: "Unread messages in the inbox", querystring: totalUnreadQuery },
      preValidation: auth,
    },
    async (request) => ok({ totalUnreadMsg: await messages.totalUnread(callerOf(request).userId) }),
  );

  r.put(
    "/api/msg/v1/read",
    {
      schema: {
        tags,
        summary: "Mark one message (id) or the whole box read",
        body: messageReadBody.nullish(),
      },
      preValidation: auth,
    },
    async (request) =>
      ok(await messages.markRead(callerOf(request).userId, request.body ?? { box: "inbox" })),
  );

  r.delete(
    "/api/msg/v1/clear",
    {
      schema: {
        tags,
        summary: "Delete one message (id) or clear the box",
        body: messageClearBody.nullish(),
      },
      preValidation: auth,
    },
    async (request) =>
      ok(await messages.clear(callerOf(request).userId, request.body ?? { box: "inbox" })),
  );

  r.get(
    "/api/msg/v1/detail/:id",
    {
      schema: { tags, summary: "One message (marks it read)", params: z.object({ id: idField }) },
      preValidation: auth,
    },
    async (request) =>
      ok(await messages.detail(callerOf(request).userId, request.params.id, requestLang(request))),
  );
}
