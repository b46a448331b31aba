import { KeyOutlined, SearchOutlined } from "@ant-design/icons";
import type { RegistryEntry } from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Button, Empty, Flex, Input, Table, type TableProps, Typography } from "antd";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { operatorApi } from "../../api/operator.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { ProvisionModal } from "./ProvisionModal.tsx";

/** The device registry: every issued machine code, its Akey and its enterprise. */
export function RegistryTab() {
  const { t } = useLang();
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [search, setSearch] = useState("");
  const [provisioning, setProvisioning] = useState(false);
  const term = useDebounced(search.trim());
  const query = { page, pageSize, search: term || undefined };
  const registry = useQuery({
    queryKey: queryKeys.registry(query),
    queryFn: () => operatorApi.registry(query),
    placeholderData: keepPreviousData,
  });

  const columns: TableProps<RegistryEntry>["columns"] = [
    {
      title: t("device.code"),
      dataIndex: "machine_code",
      width: 220,
      render: (v: string) => (
        <Typography.Text className="kw-code" copyable>
          {v}
        </Typography.Text>
      ),
    },
    { title: t("device.model"), dataIndex: "model", width: 140, render: (v: string) => v || "-" },
    {
      title: t("bo.akey"),
      dataIndex: "akey",
      ellipsis: true,
      render: (v: string | null) =>
        v || <Typography.Text type="secondary">{t("bo.noAkey")}</Typography.Text>,
    },
    {
      title: t("bo.enterprise"),
      dataIndex: "enterprise_name",
      ellipsis: true,
      render: (v: string | null) => v || "-",
    },
    {
      title: t("device.created"),
      dataIndex: "created_at",
      width: 180,
      render: (v: string) => formatDateTime(v),
    },
  ];

  return (
    <div data-testid="bo-registry">
      <Flex wrap gap={12} align="center" className="kw-toolbar">
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={t("bo.registrySearch")}
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
          className="kw-toolbar-search"
          data-testid="bo-registry-search"
        />
        <div className="kw-grow" />
        <Button
          type="primary"
          icon={<KeyOutlined />}
          onClick={() => setProvisioning(true)}
          data-testid="bo-provision"
        >
          {t("bo.provision")}
        </Button>
      </Flex>
      <div data-testid="bo-registry-table">
        <Table<RegistryEntry>
          rowKey="machine_id"
          size="middle"
          columns={columns}
          dataSource={registry.data?.list ?? []}
          loading={registry.isFetching}
          scroll={{ x: 900 }}
          onRow={(r) =>
            ({
              "data-testid": `bo-registry-row-${r.machine_code}`,
            }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: registry.isError ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("common.loadFailed")}>
                <Button size="small" onClick={() => registry.refetch()}>
                  {t("common.retry")}
                </Button>
              </Empty>
            ) : (
              <Empty
                image={Empty.PRESENTED_IMAGE_SIMPLE}
                description={term ? t("device.noMatch") : t("bo.registryEmpty")}
              />
            ),
          }}
          pagination={{
            current: page,
            pageSize,
            total: registry.data?.total ?? 0,
            showSizeChanger: true,
            pageSizeOptions: [20, 50, 100, 200],
            showTotal: (total) => t("device.total", { total }),
            onChange: (nextPage, nextSize) => {
              setPage(nextSize !== pageSize ? 1 : nextPage);
              setPageSize(nextSize);
            },
          }}
        />
      </div>
      <ProvisionModal open={provisioning} onClose={() => setProvisioning(false)} />
    </div>
  );
}
