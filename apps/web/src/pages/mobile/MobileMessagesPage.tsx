import type { MessageBox, MessageView } from "@keyway/shared";
import { useInfiniteQuery } from "@tanstack/react-query";
import { Badge, InfiniteScroll, List, PullToRefresh, Tabs } from "antd-mobile";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { messagesApi } from "../../api/messages.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { auditStateKey, messageTypeKey } from "../msgCenter/audit.tsx";
import { MessageSheet } from "./MessageSheet.tsx";
import { ListState, MobileHeader } from "./parts.tsx";

/** Messages per page on the phone (the SPEC gives none for the message centre). */
export const MOBILE_MESSAGES_PAGE = 20;

/**
 * The message centre on the phone: inbox and outbox (POST /msg/v1/page, 20 a page, more on
 * scrolling), unread marked; a tap opens the message (GET /msg/v1/detail, which marks it
 * read) and, for an approver's open visit or bind request, Approve (with a visit time for
 * visits), Refuse, or Black-list (asked first) — /msg/v1/device/{kind}/verify as on the
 * desktop.
 */
export function MobileMessagesPage() {
  const { t } = useLang();
  const [box, setBox] = useState<MessageBox>("inbox");
  const [open, setOpen] = useState<number | null>(null);
  const pages = useInfiniteQuery({
    queryKey: [...queryKeys.messagePages, "mobile", box],
    queryFn: ({ pageParam }) =>
      messagesApi.page({ box, page: pageParam, pageSize: MOBILE_MESSAGES_PAGE }),
    initialPageParam: 1,
    getNextPageParam: (last, all) =>
      all.length * MOBILE_MESSAGES_PAGE < last.total ? all.length + 1 : undefined,
  });
  const list = pages.data?.pages.flatMap((p) => p.list) ?? [];

  return (
    <div data-testid="m-messages">
      <MobileHeader title={t("msg.title")} />
      <Tabs activeKey={box} onChange={(key) => setBox(key as MessageBox)}>
        <Tabs.Tab key="inbox" title={<span data-testid="m-msg-tab-inbox">{t("msg.inbox")}</span>} />
        <Tabs.Tab
          key="outbox"
          title={<span data-testid="m-msg-tab-outbox">{t("msg.outbox")}</span>}
        />
      </Tabs>
      <PullToRefresh onRefresh={async () => void (await pages.refetch())}>
        <ListState
          loading={pages.isPending}
          error={pages.error}
          empty={pages.isSuccess && list.length === 0}
          emptyText={box === "inbox" ? t("msg.emptyInbox") : t("msg.emptyOutbox")}
          testId="m-msg"
        />
        {list.length > 0 && (
          <List data-testid={`m-msg-list-${box}`}>
            {list.map((m) => (
              <MessageRow key={m.id} message={m} onOpen={() => setOpen(m.id)} />
            ))}
          </List>
        )}
        {list.length > 0 && (
          <InfiniteScroll
            hasMore={pages.hasNextPage}
            loadMore={async () => void (await pages.fetchNextPage())}
          />
        )}
      </PullToRefresh>
      <MessageSheet id={open} box={box} onClose={() => setOpen(null)} />
    </div>
  );
}

function MessageRow({ message: m, onOpen }: { message: MessageView; onOpen: () => void }) {
  const { t } = useLang();
  const type = messageTypeKey(m.type);
  const state = m.request ? auditStateKey(m.request.auditState) : undefined;
  return (
    <List.Item
      onClick={onOpen}
      data-testid={`m-msg-${m.id}`}
      data-msg-id={m.id}
      data-read={m.read ? 1 : 0}
      prefix={<Badge content={m.read ? null : Badge.dot} />}
      description={
        <span className="kwm-alarm-meta">
          <span>{type ? t(`msg.types.${type}`) : m.type}</span>
          {state && (
            <span data-testid="m-msg-state" data-state={m.request?.auditState}>
              {t(`access.audit.${state}`)}
            </span>
          )}
          <span>{formatDateTime(m.created_at)}</span>
        </span>
      }
    >
      <span className={m.read ? undefined : "kwm-unread"}>{m.title}</span>
    </List.Item>
  );
}
