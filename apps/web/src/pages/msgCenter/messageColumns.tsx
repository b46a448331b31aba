import type { MessageView } from "@keyway/shared";
import { Badge, Button, Space, type TableProps, Typography } from "antd";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { AuditStateTag, MessageTypeTag } from "./audit.tsx";

/** The message list's columns: request number (outbox), type, title, device, state, time, actions. */
export function useMessageColumns({
  outbox,
  onOpen,
  onDelete,
  onDeleted,
}: {
  outbox: boolean;
  onOpen: (id: number) => void;
  onDelete: (id: number) => Promise<unknown>;
  onDeleted: () => Promise<unknown>;
}): TableProps<MessageView>["columns"] {
  const { t } = useLang();
  return [
    ...(outbox
      ? [
          {
            title: t("access.request.no"),
            key: "no",
            width: 80,
            render: (_: unknown, m: MessageView) =>
              m.request ? <span className="kw-code">#{m.request.id}</span> : "-",
          },
        ]
      : []),
    {
      title: t("msg.type"),
      dataIndex: "type",
      width: 130,
      render: (value: number) => <MessageTypeTag type={value} />,
    },
    {
      title: t("msg.titleCol"),
      key: "title",
      ellipsis: true,
      render: (_: unknown, m) => (
        <span className="kw-msg-title">
          {!m.read && <Badge status="processing" className="kw-msg-dot" />}
          <span className={m.read ? undefined : "kw-msg-unread"}>{m.title}</span>
          {m.content && (
            <Typography.Text type="secondary" className="kw-msg-content" ellipsis>
              {m.content}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("msg.device"),
      dataIndex: "machine_code",
      width: 170,
      render: (code: string) => (code ? <MachineCode code={code} /> : "-"),
    },
    {
      title: t("msg.state"),
      key: "state",
      width: 190,
      render: (_: unknown, m) =>
        m.request ? <AuditStateTag state={m.request.auditState} kind={m.request.kind} /> : "-",
    },
    {
      title: t("msg.time"),
      dataIndex: "created_at",
      width: 170,
      render: (value: string) => <span className="kw-nowrap">{formatDateTime(value)}</span>,
    },
    {
      title: t("common.action"),
      key: "action",
      width: 150,
      fixed: "right",
      render: (_: unknown, m) => (
        <Space size={0} onClick={(e) => e.stopPropagation()}>
          <Button
            type="link"
            size="small"
            onClick={() => onOpen(m.id)}
            data-testid={`msg-open-${m.id}`}
          >
            {t("msg.view")}
          </Button>
          <ConfirmActionLink
            title={t("msg.deleteConfirm")}
            okText={t("common.delete")}
            label={t("common.delete")}
            testId={`msg-delete-${m.id}`}
            confirmTestId="msg-delete-confirm"
            action={() => onDelete(m.id)}
            successText={t("msg.deleted")}
            onDone={onDeleted}
          />
        </Space>
      ),
    },
  ];
}
