import type { ListResult, MessageBox, MessageType, MessageView } from "@keyway/shared";
import { api } from "./client.ts";

export type { MessageBox, MessageType, MessageView };

export interface MessagePageQuery {
  box: MessageBox;
  type?: MessageType;
  /** 1: unread only. */
  unread?: 0 | 1;
  page: number;
  pageSize: number;
}

/** The message centre (SPEC §7 "Messages"). */
export const messagesApi = {
  page: (query: MessagePageQuery) =>
    api.post<ListResult<MessageView>>("/msg/v1/page", { ...query }),
  totalUnread: () => api.get<{ totalUnreadMsg: number }>("/msg/v1/totalUnread", { scene: 0 }),
  /** Marks one message read, or the whole box without `id`. */
  read: (box: MessageBox, id?: number) => api.put<unknown>("/msg/v1/read", { box, id }),
  /** Deletes one message, or clears the whole box without `id`. */
  clear: (box: MessageBox, id?: number) => api.delete<unknown>("/msg/v1/clear", { box, id }),
  /** One message (reading it marks it read). */
  detail: (id: number) => api.get<MessageView>(`/msg/v1/detail/${id}`),
};
