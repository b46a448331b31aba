import { API, type MessageBox, type MessageType, type MessageView } from "@keyway/shared";
import { request } from "./client.ts";

export type { MessageBox, MessageType, MessageView };

export interface MessagePageQuery {
  box: MessageBox;
  type?: MessageType;
  /** 1: unread only. */
  unread?: 0 | 1;
  page: number;
  pageSize: number;
}

/** The message centre (SPEC §7 "Messages"; packages/shared/src/contract/messages.ts). */
export const messagesApi = {
  page: (query: MessagePageQuery) => request(API.messages.page, { ...query }),
  totalUnread: () => request(API.messages.totalUnread, { scene: 0 }),
  /** Marks one message read, or the whole box without `id`. */
  read: (box: MessageBox, id?: number) => request(API.messages.read, { box, id }),
  /** Deletes one message, or clears the whole box without `id`. */
  clear: (box: MessageBox, id?: number) => request(API.messages.clear, { box, id }),
  /** One message (reading it marks it read). */
  detail: (id: number) => request(API.messages.detail, undefined, { params: { id } }),
};
