import { API, messagePageBody } from "@keyway/shared";
import { requestLang } from "../../http/lang.ts";
import type { Serve } from "../../http/routes.ts";
import type { MessageService } from "./service.ts";

/** SPEC §7 "Messages": the message centre's inbox and outbox (packages/shared/src/contract/messages.ts). */
export function messageRoutes(serve: Serve, { messages }: { messages: MessageService }) {
  const m = API.messages;
  serve(m.page, ({ caller, input, request }) =>
    messages.page(caller.userId, requestLang(request), input ?? messagePageBody.parse({})),
  );
  serve(m.msgCenter, ({ caller, input, request }) =>
    messages.page(caller.userId, requestLang(request), {
      box: "inbox",
      type: input?.msgwhat,
      page: 1,
      pageSize: 100,
    }),
  );
  serve(m.totalUnread, async ({ caller }) => ({
    totalUnreadMsg: await messages.totalUnread(caller.userId),
  }));
  serve(m.read, ({ caller, input }) => messages.markRead(caller.userId, input ?? { box: "inbox" }));
  serve(m.clear, ({ caller, input }) => messages.clear(caller.userId, input ?? { box: "inbox" }));
  serve(m.detail, ({ caller, params, request }) =>
    messages.detail(caller.userId, params.id, requestLang(request)),
  );
}
