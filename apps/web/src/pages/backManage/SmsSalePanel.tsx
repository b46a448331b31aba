import { ShoppingCartOutlined } from "@ant-design/icons";
import {
  LIMITS,
  PAGE_SIZE,
  type SmsStockRecord,
  smsAmountField,
  smsSaleBody,
} from "@keyway/shared";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Form, Input, InputNumber, Table, type TableProps, Typography } from "antd";
import { useState } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { parseForm, useZodRule, zodValueRule } from "../../lib/zodRule.tsx";
import { errorText, rowsOf } from "../dataCenter/parts.tsx";

const amountRule = zodValueRule(smsAmountField, (v: number | null | undefined) => v ?? undefined);

/** The operator records an SMS stock sale to an enterprise (credited to its pool). */
export function SmsSalePanel({ eid }: { eid: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(smsSaleBody);
  const [page, setPage] = useState(1);
  const query = { eid, page, pageSize: PAGE_SIZE.smsLogs };
  const sales = useQuery({
    queryKey: [...queryKeys.operatorSales(eid), page],
    queryFn: () => alarmPushApi.operatorSales(query),
    placeholderData: keepPreviousData,
    meta: { silent: true },
  });
  const sell = useMutation({ mutationFn: alarmPushApi.recordSale });
  const { list, total } = rowsOf(sales);

  const columns: TableProps<SmsStockRecord>["columns"] = [
    {
      title: t("alarmPush.records.time"),
      dataIndex: "createTime",
      width: 170,
      render: (v: number) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
    },
    { title: t("alarmPush.stock.amount"), dataIndex: "amount", width: 100, align: "right" },
    {
      title: t("alarmPush.sale.remark"),
      dataIndex: "remark",
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("alarmPush.records.operator"),
      dataIndex: "operatorName",
      width: 130,
      ellipsis: true,
    },
  ];

  return (
    <div data-testid="bo-sms-sale">
      <Typography.Title level={5}>{t("alarmPush.sale.title")}</Typography.Title>
      <Typography.Paragraph type="secondary">{t("alarmPush.sale.hint")}</Typography.Paragraph>
      <Form
        form={form}
        layout="inline"
        requiredMark={false}
        className="kw-inline-form kw-mb"
        onFinish={async (values) => {
          const body = parseForm(smsSaleBody, { ...values, eid });
          let credited: Awaited<ReturnType<typeof alarmPushApi.recordSale>>;
          try {
            credited = await sell.mutateAsync(body);
          } catch {
            return;
          }
          message.success(
            t("alarmPush.sale.done", { amount: body.amount, balance: credited.balance }),
          );
          form.resetFields();
          setPage(1);
          await queryClient.invalidateQueries({ queryKey: queryKeys.operatorSales(eid) });
          await queryClient.invalidateQueries({ queryKey: queryKeys.alarmPushAll(eid) });
        }}
      >
        <Form.Item name="amount" label={t("alarmPush.sale.amount")} rules={[amountRule]}>
          <InputNumber
            precision={0}
            min={1}
            className="kw-dc-amount"
            addonAfter={t("alarmPush.unitSms")}
            data-testid="bo-sale-amount"
          />
        </Form.Item>
        <Form.Item name="remark" rules={[rule("remark")]}>
          <Input
            placeholder={t("alarmPush.sale.remarkPlaceholder")}
            maxLength={LIMITS.remark.max}
            className="kw-w-220"
            data-testid="bo-sale-remark"
          />
        </Form.Item>
        <Form.Item>
          <Button
            type="primary"
            htmlType="submit"
            icon={<ShoppingCartOutlined />}
            loading={sell.isPending}
            data-testid="bo-sale-submit"
          >
            {t("alarmPush.sale.submit")}
          </Button>
        </Form.Item>
      </Form>
      <Typography.Title level={5}>{t("alarmPush.sale.history")}</Typography.Title>
      <Table<SmsStockRecord>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={list}
        loading={sales.isFetching}
        onRow={() => ({ "data-testid": "bo-sale-row" }) as React.HTMLAttributes<HTMLElement>}
        locale={{
          emptyText: (
            <ListEmpty
              error={errorText(sales)}
              onRetry={() => sales.refetch()}
              description={t("alarmPush.records.empty")}
            />
          ),
        }}
        pagination={{
          current: page,
          pageSize: PAGE_SIZE.smsLogs,
          total,
          showSizeChanger: false,
          onChange: setPage,
        }}
      />
    </div>
  );
}
