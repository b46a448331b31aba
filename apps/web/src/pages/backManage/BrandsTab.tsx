import { type BrandSettingsView, brandById, brandLogo } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Alert, App, Avatar, Space, Switch, Table, type TableProps, Tag } from "antd";
import { queryKeys } from "../../api/keys.ts";
import { operatorApi } from "../../api/operator.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";

/** The operator's switches per white-label brand: may the brand's users create enterprises. */
export function BrandsTab() {
  const { t, lang } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const brands = useQuery({
    queryKey: queryKeys.brandSettings,
    queryFn: operatorApi.brandSettings,
    meta: { silent: true },
  });
  const set = useMutation({ mutationFn: operatorApi.setBrandSettings });
  const nameOf = (b: BrandSettingsView) => (lang === "en" ? b.name.en : b.name.zh);

  const columns: TableProps<BrandSettingsView>["columns"] = [
    {
      title: t("entCreate.brand"),
      dataIndex: "oemid",
      render: (oemid: string, b) => {
        const brand = brandById(oemid);
        return (
          <Space>
            {brand && <Avatar shape="square" size="small" src={brandLogo(brand)} />}
            <span>{nameOf(b)}</span>
            <Tag>{oemid}</Tag>
          </Space>
        );
      },
    },
    {
      title: t("entCreate.brandUserEnterprises"),
      dataIndex: "userEnterprises",
      width: 260,
      render: (on: 0 | 1, b) => (
        <Space>
          <Switch
            checked={on === 1}
            loading={set.isPending && set.variables?.oemid === b.oemid}
            onChange={async (checked) => {
              try {
                await set.mutateAsync({ oemid: b.oemid, userEnterprises: checked ? 1 : 0 });
              } catch {
                return; // shown by the client's error handler
              }
              message.success(t("entCreate.brandSaved", { name: nameOf(b) }));
              await queryClient.invalidateQueries({ queryKey: queryKeys.brandSettings });
            }}
            data-testid={`bo-brand-switch-${b.oemid}`}
          />
          <span>{on === 1 ? t("entCreate.brandOn") : t("entCreate.brandOff")}</span>
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="bo-brands">
      <Alert className="kw-mb" type="info" showIcon title={t("entCreate.brandHint")} />
      <Table<BrandSettingsView>
        rowKey="oemid"
        size="middle"
        columns={columns}
        dataSource={brands.data?.list ?? []}
        loading={brands.isFetching}
        pagination={false}
        locale={{
          emptyText: (
            <ListEmpty
              error={brands.isError ? brands.error.message : null}
              onRetry={() => brands.refetch()}
              description={t("bo.enterpriseEmpty")}
            />
          ),
        }}
      />
    </div>
  );
}
