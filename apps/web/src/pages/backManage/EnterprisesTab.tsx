import { PlusOutlined, SearchOutlined, ShopOutlined } from "@ant-design/icons";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Avatar, Button, Empty, Flex, Input, Space, Table, type TableProps, Tag } from "antd";
import { useState } from "react";
import type { EnterpriseSummary } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { operatorApi } from "../../api/operator.ts";
import { useLang } from "../../i18n/index.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { CreateEnterpriseModal } from "./CreateEnterpriseModal.tsx";
import { EnterpriseDrawer } from "./EnterpriseDrawer.tsx";

/** Enterprises: list, create, and a drawer with members and devices. */
export function EnterprisesTab() {
  const { t } = useLang();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [search, setSearch] = useState("");
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<EnterpriseSummary | null>(null);
  const term = useDebounced(search.trim());
  const query = { page, pageSize, search: term || undefined };
  const enterprises = useQuery({
    queryKey: queryKeys.operatorEnterprises(query),
    queryFn: () => operatorApi.enterprises(query),
    placeholderData: keepPreviousData,
  });

  const columns: TableProps<EnterpriseSummary>["columns"] = [
    { title: "EID", dataIndex: "eid", width: 80 },
    {
      title: t("bo.enterpriseName"),
      dataIndex: "name",
      ellipsis: true,
      render: (name: string, e) => (
        <Space>
          <Avatar
            shape="square"
            size={24}
            src={e.applyLogoUrl || undefined}
            icon={<ShopOutlined />}
          />
          <span>{name}</span>
        </Space>
      ),
    },
    {
      title: t("bo.platformName"),
      dataIndex: "platformName",
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("bo.enableProject"),
      dataIndex: "enableProject",
      width: 130,
      render: (v: 0 | 1) =>
        v === 1 ? <Tag color="green">{t("common.yes")}</Tag> : <Tag>{t("common.no")}</Tag>,
    },
    {
      title: t("common.action"),
      key: "action",
      width: 120,
      render: (_: unknown, e) => (
        <Button type="link" size="small" data-testid={`bo-enterprise-manage-${e.eid}`}>
          {t("bo.manage")}
        </Button>
      ),
    },
  ];

  return (
    <div data-testid="bo-enterprises">
      <Flex wrap gap={12} align="center" className="kw-toolbar">
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t("bo.enterpriseSearch")}
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
          className="kw-toolbar-search"
          data-testid="bo-enterprise-search"
        />
        <div className="kw-grow" />
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => setCreating(true)}
          data-testid="bo-enterprise-create"
        >
          {t("bo.createEnterprise")}
        </Button>
      </Flex>
      <div data-testid="bo-enterprise-table">
        <Table<EnterpriseSummary>
          rowKey="eid"
          size="middle"
          columns={columns}
          dataSource={enterprises.data?.list ?? []}
          loading={enterprises.isFetching}
          scroll={{ x: 760 }}
          rowClassName="kw-clickable"
          onRow={(e) =>
            ({
              "data-testid": `bo-enterprise-row-${e.eid}`,
              onClick: () => setOpen(e),
            }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: enterprises.isError ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("common.loadFailed")}>
                <Button size="small" onClick={() => enterprises.refetch()}>
                  {t("common.retry")}
                </Button>
              </Empty>
            ) : (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={term ? t("bo.enterpriseNoMatch") : t("bo.enterpriseEmpty")}
              />
            ),
          }}
          pagination={{
            current: page,
            pageSize,
            total: enterprises.data?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: [20, 50, 100],
            onChange: (nextPage, nextSize) => {
              setPage(nextSize !== pageSize ? 1 : nextPage);
              setPageSize(nextSize);
            },
          }}
        />
      </div>
      <CreateEnterpriseModal open={creating} onClose={() => setCreating(false)} />
      <EnterpriseDrawer enterprise={open} onClose={() => setOpen(null)} />
    </div>
  );
}
