import { z } from "zod";
import {
  type MessageView,
  messageClearBody,
  messagePageBody,
  messageReadBody,
  msgCenterBody,
  totalUnreadQuery,
} from "../access.ts";
import type { ListResult } from "../accounts.ts";
import { idField } from "../fields.ts";
import { group, route } from "./route.ts";

/** What reading or clearing leaves unread in the inbox (the badge). */
interface UnreadTotal {
  totalUnreadMsg: number;
}

/**
 * SPEC §7 "Messages": the message centre's inbox and outbox. SPEC §8 counts the /msg calls
 * as SMS / alarm calls; the older getMsgCenterMsgs is not one.
 */
export const messages = group(
  { auth: "user", tags: ["messages"], smsAlarm: true },
  {
    page: route<ListResult<MessageView>>()({
      method: "POST",
      path: "/api/msg/v1/page",
      summary: "A page of the inbox or outbox",
      input: messagePageBody.nullish(),
    }),
    msgCenter: route<ListResult<MessageView>>()({
      method: "POST",
      path: "/api/user/getMsgCenterMsgs",
      summary: "Inbox messages of one type (msgwhat)",
      input: msgCenterBody.nullish(),
      smsAlarm: false,
    }),
    totalUnread: route<UnreadTotal>()({
      method: "GET",
      path: "/api/msg/v1/totalUnread",
      summary: "Unread messages in the inbox",
      input: totalUnreadQuery,
    }),
    read: route<UnreadTotal>()({
      method: "PUT",
      path: "/api/msg/v1/read",
      summary: "Mark one message (id) or the whole box read",
      input: messageReadBody.nullish(),
    }),
    clear: route<UnreadTotal>()({
      method: "DELETE",
      path: "/api/msg/v1/clear",
      summary: "Delete one message (id) or clear the box",
      input: messageClearBody.nullish(),
    }),
    detail: route<MessageView>()({
      method: "GET",
      path: "/api/msg/v1/detail/:id",
      summary: "One message (marks it read)",
      params: z.object({ id: idField }),
    }),
  },
);
