import {
  addVisitBody,
  isFinalAuditState,
  type MessageBox,
  type MessageView,
  type ReplyResult,
  visitTimeField,
} from "@keyway/shared";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  Badge,
  Button,
  Dialog,
  Form,
  InfiniteScroll,
  Input,
  List,
  Popup,
  PullToRefresh,
  Selector,
  Tabs,
  Toast,
} from "antd-mobile";
import { useEffect, useState } from "react";
import { accessApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { messagesApi } from "../../api/messages.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { auditStateKey, messageTypeKey } from "../msgCenter/audit.tsx";
import { ListState, MobileHeader } from "./parts.tsx";
import { useMobileZodRule } from "./zodRule.ts";

/** Messages per page on the phone (the SPEC gives none for the message centre). */
export const MOBILE_MESSAGES_PAGE = 20;

/** The leave message of a reply: the same field (≤ 15 characters) as a request's. */
const replyForm = addVisitBody.pick({ message: true });

/** Visit times offered on the phone, in minutes (-1 forever); each passes visitTimeField. */
const VISIT_PRESETS = [30, 60, 8 * 60, 24 * 60, 7 * 24 * 60, -1] as const;

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

function MessageSheet({
  id,
  box,
  onClose,
}: {
  id: number | null;
  box: MessageBox;
  onClose: () => void;
}) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const detail = useQuery({
    queryKey: queryKeys.message(id ?? 0),
    queryFn: () => messagesApi.detail(id ?? 0),
    enabled: id !== null,
  });
  // Reading marks it read: the lists and the badge follow.
  const readAt = detail.dataUpdatedAt;
  useEffect(() => {
    if (!readAt) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.messagePages });
    void queryClient.invalidateQueries({ queryKey: queryKeys.totalUnread });
  }, [readAt, queryClient]);
  const m = detail.data;
  const request = m?.request;
  return (
    <Popup
      visible={id !== null}
      onMaskClick={onClose}
      onClose={onClose}
      destroyOnClose
      bodyClassName="kwm-sheet"
    >
      <div data-testid="m-msg-detail" data-box={box}>
        {detail.isPending && <div className="kwm-state">{t("common.loading")}</div>}
        {detail.error && <div className="kwm-state kwm-state-error">{detail.error.message}</div>}
        {m && (
          <>
            <h2 className="kwm-sheet-title">{m.title}</h2>
            <div className="kwm-facts">
              <div>
                <span>{t("msg.time")}</span>
                <b>{formatDateTime(m.created_at)}</b>
              </div>
              {m.machine_code && (
                <div>
                  <span>{t("msg.device")}</span>
                  <b>{m.machine_code}</b>
                </div>
              )}
              {m.content && (
                <div>
                  <span>{t("msg.content")}</span>
                  <b data-testid="m-msg-content">{m.content}</b>
                </div>
              )}
              {request && (
                <>
                  <div>
                    <span>{t("access.request.no")}</span>
                    <b>#{request.id}</b>
                  </div>
                  <div>
                    <span>{t("access.request.kind")}</span>
                    <b>{t(`access.kinds.${request.kind}`)}</b>
                  </div>
                  <div>
                    <span>{t("access.request.requester")}</span>
                    <b data-testid="m-msg-requester">
                      {request.requester_name} {request.requester_account}
                    </b>
                  </div>
                  {request.message && (
                    <div>
                      <span>{t("access.request.message")}</span>
                      <b>{request.message}</b>
                    </div>
                  )}
                  <div>
                    <span>{t("access.request.state")}</span>
                    <b data-testid="m-msg-detail-state" data-state={request.auditState}>
                      {(() => {
                        const key = auditStateKey(request.auditState);
                        return key ? t(`access.audit.${key}`) : request.auditState;
                      })()}
                    </b>
                  </div>
                </>
              )}
            </div>
            {request && m.canReply && !isFinalAuditState(request.auditState) && (
              <ReplyForm
                msgId={m.id}
                kind={request.kind}
                requester={request.requester_name || request.requester_account}
              />
            )}
          </>
        )}
        <Button block onClick={onClose} className="kwm-mt" data-testid="m-msg-close">
          {t("common.close")}
        </Button>
      </div>
    </Popup>
  );
}

function presetLabel(t: ReturnType<typeof useLang>["t"], minutes: number): string {
  if (minutes === -1) return t("access.time.forever");
  if (minutes % (24 * 60) === 0) return t("access.time.days", { count: minutes / (24 * 60) });
  if (minutes % 60 === 0) return t("access.time.hours", { count: minutes / 60 });
  return t("access.time.minutes", { count: minutes });
}

/** Approve (visits: with a visit time), refuse, or black-list (asked first). */
function ReplyForm({
  msgId,
  kind,
  requester,
}: {
  msgId: number;
  kind: "visit" | "bind";
  requester: string;
}) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ message: string }>();
  const rule = useMobileZodRule(replyForm);
  const [visitTime, setVisitTime] = useState<number>(60);
  const reply = useMutation({
    mutationFn: (input: { result: ReplyResult; message: string }) =>
      accessApi.verify(kind, msgId, {
        result: input.result,
        message: input.message,
        visitTime:
          input.result === "agree" && kind === "visit"
            ? visitTimeField.parse(visitTime)
            : undefined,
      }),
    onSuccess: async (_view, input) => {
      const done = {
        agree: t("access.reply.agreed"),
        refuse: t("access.reply.refused"),
        blacklist: t("access.reply.blacklisted"),
      } as const;
      Toast.show({ icon: "success", content: done[input.result] });
      await queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
    },
  });
  const answer = async (result: ReplyResult) => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    const { message } = parseForm(replyForm, form.getFieldsValue(true));
    if (result === "blacklist") {
      const yes = await Dialog.confirm({
        title: t("access.reply.blacklistConfirm", { name: requester }),
        content: t("access.reply.blacklistHint"),
        confirmText: <span data-testid="m-reply-blacklist-ok">{t("access.reply.blacklist")}</span>,
        cancelText: t("common.cancel"),
      });
      if (!yes) return;
    }
    reply.mutate({ result, message });
  };
  const busy = (result: ReplyResult) => reply.isPending && reply.variables?.result === result;
  return (
    <div className="kwm-reply" data-testid="m-reply">
      <h3>{t("access.reply.title")}</h3>
      {kind === "visit" && (
        <>
          <div className="kwm-label">{t("access.reply.visitTime")}</div>
          <Selector
            columns={3}
            value={[visitTime]}
            onChange={(v) => v[0] !== undefined && setVisitTime(v[0])}
            options={VISIT_PRESETS.map((m) => ({ label: presetLabel(t, m), value: m }))}
            data-testid="m-reply-visit-time"
          />
        </>
      )}
      <Form form={form} layout="vertical" initialValues={{ message: "" }}>
        <Form.Item name="message" label={t("access.reply.message")} rules={[rule("message")]}>
          <Input
            placeholder={t("access.messagePlaceholder")}
            maxLength={15}
            data-testid="m-reply-message"
          />
        </Form.Item>
      </Form>
      <div className="kwm-reply-buttons">
        <Button
          color="primary"
          loading={busy("agree")}
          disabled={reply.isPending}
          onClick={() => void answer("agree")}
          data-testid="m-reply-agree"
        >
          {t("access.reply.agree")}
        </Button>
        <Button
          loading={busy("refuse")}
          disabled={reply.isPending}
          onClick={() => void answer("refuse")}
          data-testid="m-reply-refuse"
        >
          {t("access.reply.refuse")}
        </Button>
        <Button
          color="danger"
          fill="outline"
          loading={busy("blacklist")}
          disabled={reply.isPending}
          onClick={() => void answer("blacklist")}
          data-testid="m-reply-blacklist"
        >
          {t("access.reply.blacklist")}
        </Button>
      </div>
    </div>
  );
}
