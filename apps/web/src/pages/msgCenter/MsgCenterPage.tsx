import { CheckOutlined, ClearOutlined, FileSearchOutlined } from "@ant-design/icons";
import { MESSAGE_TYPE, type MessageBox, type MessageType, type MessageView } from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Card, Flex, Select, Space, Switch, Table, Tabs, Typography } from "antd";
import { useState } from "react";
import { useSearchParams } from "react-router";
import { queryKeys } from "../../api/keys.ts";
import { type MessagePageQuery, messagesApi } from "../../api/messages.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { useAppStore } from "../../store/app.ts";
import { AuditQueryModal } from "./AuditQueryModal.tsx";
import { messageTypeKey } from "./audit.tsx";
import { MessageDetailDrawer } from "./MessageDetailDrawer.tsx";
import { useMessageColumns } from "./messageColumns.tsx";

const PAGE_SIZE = 10;
const ALL_TYPES = "all";

function parseBox(value: string | null): MessageBox {
  return value === "outbox" ? "outbox" : "inbox";
}

/**
 * /msgCenter (SPEC §2 "Message centre: inbox and outbox tabs and an audit-result query"):
 * the messages of a box, newest first, with type, device, live audit state and time; a
 * detail drawer to read and answer requests; mark all read, delete one, clear all. Pushes
 * refresh the lists (the main layout invalidates the message queries).
 */
export function MsgCenterPage() {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const box = parseBox(params.get("box"));
  const [page, setPage] = useState(1);
  const [type, setType] = useState<string>(ALL_TYPES);
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [openId, setOpenId] = useState<number | null>(null);
  const [querying, setQuerying] = useState(false);

  const query: MessagePageQuery = {
    box,
    type: type === ALL_TYPES ? undefined : (Number(type) as MessageType),
    unread: unreadOnly ? 1 : undefined,
    page,
    pageSize: PAGE_SIZE,
  };
  const messages = useQuery({
    queryKey: queryKeys.messages(query),
    queryFn: () => messagesApi.page(query),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
  const readAll = useMutation({
    mutationFn: () => messagesApi.read(box),
    onSuccess: async () => {
      message.success(t("msg.allRead"));
      await refresh();
    },
  });
  const clearAll = useMutation({ mutationFn: () => messagesApi.clear(box) });
  const remove = useMutation({ mutationFn: (id: number) => messagesApi.clear(box, id) });

  const switchBox = (next: MessageBox) => {
    setPage(1);
    setParams(
      (current) => {
        const copy = new URLSearchParams(current);
        copy.set("box", next);
        return copy;
      },
      { replace: true },
    );
  };

  const list = messages.data?.list ?? [];
  const total = messages.data?.total ?? 0;
  const outbox = box === "outbox";
  // "Mark all read" marks the whole box, whatever the filters show: it follows the inbox's
  // unread count the navigation badge shows (pushes and GET totalUnread keep it), not the
  // length of the filtered page, which may be empty while messages are unread. Unread rows
  // on the page count too, in case the count has not caught up yet. What the user sent is
  // never unread (the outbox).
  const unreadTotal = useAppStore((s) => s.messageCenter.totalUnreadMsg);
  const hasUnread = !outbox && (unreadTotal > 0 || list.some((m) => !m.read));

  const columns = useMessageColumns({
    outbox,
    onOpen: setOpenId,
    onDelete: (id) => remove.mutateAsync(id),
    onDeleted: refresh,
  });

  const typeOptions = [
    { value: ALL_TYPES, label: t("msg.allTypes") },
    ...Object.values(MESSAGE_TYPE).map((value) => {
      const key = messageTypeKey(value);
      return { value: String(value), label: key ? t(`msg.types.${key}`) : String(value) };
    }),
  ];

  const table = (
    <div data-testid={`msg-list-${box}`}>
      <Table<MessageView>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={list}
        loading={messages.isFetching}
        scroll={{ x: 900 }}
        rowClassName={(m) => (m.read ? "kw-clickable" : "kw-clickable kw-msg-row-unread")}
        onRow={(m) =>
          ({
            "data-testid": `msg-row-${m.id}`,
            "data-read": m.read ? "1" : "0",
            onClick: () => setOpenId(m.id),
          }) as React.HTMLAttributes<HTMLElement>
        }
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total,
          showSizeChanger: false,
          hideOnSinglePage: true,
          showTotal: (n) => t("msg.total", { total: n }),
          onChange: setPage,
        }}
        locale={{
          emptyText: (
            <div data-testid="msg-empty">
              <ListEmpty
                error={messages.isError ? messages.error.message : null}
                onRetry={() => messages.refetch()}
                description={outbox ? t("msg.emptyOutbox") : t("msg.emptyInbox")}
              />
            </div>
          ),
        }}
      />
    </div>
  );

  return (
    <div className="kw-page kw-page-wide" data-testid="msg-page">
      <Flex align="baseline" gap={12} className="kw-page-head">
        <Typography.Title level={4} className="kw-page-title">
          {t("msg.title")}
        </Typography.Title>
        {messages.data && (
          <Typography.Text type="secondary" data-testid="msg-total">
            {t("msg.total", { total })}
          </Typography.Text>
        )}
      </Flex>
      <Card className="kw-card" styles={{ body: { padding: "4px 16px 16px" } }}>
        <Tabs
          activeKey={box}
          onChange={(key) => switchBox(key as MessageBox)}
          tabBarExtraContent={
            <Button
              icon={<FileSearchOutlined />}
              onClick={() => setQuerying(true)}
              data-testid="msg-audit-query"
            >
              {t("access.query.open")}
            </Button>
          }
          items={[
            {
              key: "inbox",
              label: <span data-testid="msg-tab-inbox">{t("msg.inbox")}</span>,
            },
            {
              key: "outbox",
              label: <span data-testid="msg-tab-outbox">{t("msg.outbox")}</span>,
            },
          ]}
        />
        <Flex wrap gap={12} align="center" className="kw-toolbar">
          <Select
            className="kw-w-160"
            value={type}
            onChange={(next) => {
              setType(next);
              setPage(1);
            }}
            options={typeOptions}
            popupMatchSelectWidth={200}
            data-testid="msg-type-filter"
          />
          <Space size={6}>
            <Switch
              size="small"
              checked={unreadOnly}
              onChange={(next) => {
                setUnreadOnly(next);
                setPage(1);
              }}
              data-testid="msg-unread-only"
            />
            <Typography.Text>{t("msg.unreadOnly")}</Typography.Text>
          </Space>
          <div className="kw-grow" />
          <Button
            icon={<CheckOutlined />}
            loading={readAll.isPending}
            disabled={!hasUnread}
            onClick={() => readAll.mutate()}
            data-testid="msg-read-all"
          >
            {t("msg.readAll")}
          </Button>
          <ConfirmActionLink
            title={outbox ? t("msg.clearConfirmOutbox") : t("msg.clearConfirmInbox")}
            description={t("msg.clearHint")}
            okText={t("msg.clear")}
            label={t("msg.clear")}
            icon={<ClearOutlined />}
            loading={clearAll.isPending}
            testId="msg-clear-all"
            confirmTestId="msg-clear-confirm"
            action={() => clearAll.mutateAsync()}
            successText={t("msg.cleared")}
            onDone={() => {
              setPage(1);
              return refresh();
            }}
          />
        </Flex>
        {table}
      </Card>

      <MessageDetailDrawer id={openId} box={box} onClose={() => setOpenId(null)} />
      <AuditQueryModal open={querying} onClose={() => setQuerying(false)} />
    </div>
  );
}
