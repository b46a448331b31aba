import { MailOutlined, MessageOutlined, ReloadOutlined } from "@ant-design/icons";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Button, Card, Empty, Table, type TableProps, Tag, Typography } from "antd";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { type OutboxEntry, operatorApi } from "../../api/operator.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";

const STATUS_COLORS: Record<string, string> = {
  sent: "success",
  delivered: "success",
  queued: "processing",
  pending: "processing",
  failed: "error",
};

/** GET /operator/v1/outbox: what the platform "sent" (local outbox in the default set-up). */
export function OutboxTable() {
  const { t } = useLang();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const outbox = useQuery({
    queryKey: queryKeys.outbox(page, pageSize),
    queryFn: () => operatorApi.outbox(page, pageSize),
    placeholderData: keepPreviousData,
  });

  const columns: TableProps<OutboxEntry>["columns"] = [
    {
      title: t("backManage.colChannel"),
      dataIndex: "channel",
      width: 110,
      render: (channel: OutboxEntry["channel"]) =>
        channel === "email" ? (
          <Tag icon={<MailOutlined />} color="blue">
            {t("backManage.channelEmail")}
          </Tag>
        ) : (
          <Tag icon={<MessageOutlined />} color="green">
            {t("backManage.channelSms")}
          </Tag>
        ),
    },
    { title: t("backManage.colRecipient"), dataIndex: "recipient", width: 220, ellipsis: true },
    {
      title: t("backManage.colSubject"),
      dataIndex: "subject",
      width: 220,
      ellipsis: true,
      render: (subject: string | null) => subject || "-",
    },
    {
      title: t("backManage.colBody"),
      dataIndex: "body",
      render: (body: string) => (
        <Typography.Paragraph
          className="kw-outbox-body"
          ellipsis={{ rows: 2, expandable: "collapsible" }}
        >
          {body}
        </Typography.Paragraph>
      ),
    },
    {
      title: t("backManage.colStatus"),
      dataIndex: "status",
      width: 110,
      render: (status: string) => (
        <Tag color={STATUS_COLORS[status.toLowerCase()] ?? "default"}>{status}</Tag>
      ),
    },
    {
      title: t("backManage.colTime"),
      dataIndex: "createdAt",
      width: 180,
      render: (value: string) => formatDateTime(value),
    },
  ];

  return (
    <Card
      className="kw-card"
      title={t("backManage.outbox")}
      extra={
        <Button
          icon={<ReloadOutlined />}
          onClick={() => outbox.refetch()}
          loading={outbox.isFetching}
          data-testid="outbox-refresh"
        >
          {t("backManage.refresh")}
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">{t("backManage.outboxHint")}</Typography.Paragraph>
      <div data-testid="outbox-table">
        <Table<OutboxEntry>
          rowKey="id"
          size="middle"
          columns={columns}
          dataSource={outbox.data?.list ?? []}
          loading={outbox.isFetching}
          scroll={{ x: 1000 }}
          locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
          pagination={{
            current: page,
            pageSize,
            total: outbox.data?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: [10, 20, 50, 100],
            onChange: (nextPage, nextSize) => {
              setPage(nextSize !== pageSize ? 1 : nextPage);
              setPageSize(nextSize);
            },
          }}
        />
      </div>
    </Card>
  );
}
