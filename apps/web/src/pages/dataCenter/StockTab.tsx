import { SendOutlined, SwapOutlined, WalletOutlined } from "@ant-design/icons";
import { type SmsStock, smsAllocateBody, smsAmountField, smsTransferBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Button,
  type ButtonProps,
  Card,
  Col,
  Flex,
  Form,
  type FormRule,
  InputNumber,
  Result,
  Row,
  Select,
  Skeleton,
  Space,
  Statistic,
  Table,
  type TableProps,
  Typography,
} from "antd";
import { useMemo, useState } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { enterpriseAdminApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule, zodValueRule } from "../../lib/zodRule.tsx";
import { errorText } from "./parts.tsx";

const amountRule = zodValueRule(smsAmountField, (v: number | null | undefined) => v ?? undefined);

/** The enterprise's SMS stock: admins see every member's balance, allocate and transfer. */
export function StockTab({ eid }: { eid: number }) {
  const entConfig = useQuery({
    queryKey: queryKeys.alarmPush(eid, "entConfig"),
    queryFn: () => alarmPushApi.entConfig(eid),
  });
  if (entConfig.isPending) return <Skeleton active paragraph={{ rows: 6 }} />;
  if (entConfig.data?.isAdmin) {
    return (
      <AdminStock
        eid={eid}
        pool={entConfig.data.poolBalance}
        allocated={entConfig.data.allocatedBalance}
      />
    );
  }
  return <MyStock eid={eid} />;
}

/** A member's own balance in the enterprise. */
function MyStock({ eid }: { eid: number }) {
  const { t } = useLang();
  const stock = useQuery({
    queryKey: queryKeys.alarmPush(eid, "myStock"),
    queryFn: () => alarmPushApi.userStock(eid),
  });
  return (
    <Card className="kw-card" data-testid="stock-mine">
      {stock.isError ? (
        <Result
          status="warning"
          title={t("common.loadFailed")}
          subTitle={stock.error.message}
          extra={<Button onClick={() => stock.refetch()}>{t("common.retry")}</Button>}
        />
      ) : !stock.data ? (
        <Skeleton active />
      ) : (
        <>
          <Row gutter={16}>
            <Col xs={8}>
              <Statistic
                title={t("alarmPush.stock.balance")}
                value={stock.data.balance}
                prefix={<WalletOutlined />}
              />
            </Col>
            <Col xs={8}>
              <Statistic title={t("alarmPush.stock.received")} value={stock.data.received} />
            </Col>
            <Col xs={8}>
              <Statistic title={t("alarmPush.stock.used")} value={stock.data.used} />
            </Col>
          </Row>
          <Typography.Paragraph type="secondary" className="kw-mt">
            {t("alarmPush.stock.mineHint")}
          </Typography.Paragraph>
        </>
      )}
    </Card>
  );
}

type Dialog = { kind: "allocate"; userId?: number } | { kind: "transfer"; fromUserId?: number };

function AdminStock({ eid, pool, allocated }: { eid: number; pool: number; allocated: number }) {
  const { t } = useLang();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const stock = useQuery({
    queryKey: queryKeys.alarmPush(eid, "stockList"),
    queryFn: () => alarmPushApi.stockList(eid),
    meta: { silent: true },
  });
  const members = useQuery({
    queryKey: queryKeys.adminMembers(eid),
    queryFn: () => enterpriseAdminApi.members(eid),
    meta: { silent: true },
  });

  // Every member, with a zero balance when nothing was allocated to them yet.
  const rows = useMemo<SmsStock[]>(() => {
    if (stock.isError) return [];
    const byUser = new Map<number, SmsStock>();
    for (const s of stock.data?.list ?? []) if (s.userId !== 0) byUser.set(s.userId, s);
    for (const m of members.data?.list ?? []) {
      if (!byUser.has(m.userId)) {
        byUser.set(m.userId, {
          eid,
          userId: m.userId,
          name: m.name,
          account: m.account,
          balance: 0,
          received: 0,
          used: 0,
        });
      }
    }
    return [...byUser.values()];
  }, [stock.data, stock.isError, members.data, eid]);

  const columns: TableProps<SmsStock>["columns"] = [
    { title: t("alarmPush.stock.member"), dataIndex: "name", ellipsis: true },
    { title: t("field.account"), dataIndex: "account", ellipsis: true },
    {
      title: t("alarmPush.stock.balance"),
      dataIndex: "balance",
      width: 120,
      align: "right",
      render: (v: number) => <Typography.Text strong>{v}</Typography.Text>,
    },
    { title: t("alarmPush.stock.received"), dataIndex: "received", width: 120, align: "right" },
    { title: t("alarmPush.stock.used"), dataIndex: "used", width: 120, align: "right" },
    {
      title: t("common.action"),
      key: "action",
      width: 190,
      align: "center",
      render: (_: unknown, s) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            onClick={() => setDialog({ kind: "allocate", userId: s.userId })}
            data-testid={`stock-allocate-${s.userId}`}
          >
            {t("alarmPush.stock.allocate")}
          </Button>
          <Button
            type="link"
            size="small"
            disabled={s.balance <= 0}
            onClick={() => setDialog({ kind: "transfer", fromUserId: s.userId })}
            data-testid={`stock-transfer-${s.userId}`}
          >
            {t("alarmPush.stock.transfer")}
          </Button>
        </Space>
      ),
    },
  ];

  return (
    <Flex vertical gap={16} data-testid="stock-admin">
      <Card className="kw-card">
        <Row gutter={16} align="middle">
          <Col xs={12} md={6}>
            <Statistic
              title={t("alarmPush.stock.pool")}
              value={pool}
              prefix={<WalletOutlined />}
              data-testid="stock-pool"
            />
          </Col>
          <Col xs={12} md={6}>
            <Statistic title={t("alarmPush.stock.allocated")} value={allocated} />
          </Col>
          <Col xs={24} md={12}>
            <Flex gap={8} justify="flex-end" wrap>
              <Button
                type="primary"
                icon={<SendOutlined />}
                onClick={() => setDialog({ kind: "allocate" })}
                data-testid="stock-allocate"
              >
                {t("alarmPush.stock.allocate")}
              </Button>
              <Button
                icon={<SwapOutlined />}
                onClick={() => setDialog({ kind: "transfer" })}
                data-testid="stock-transfer"
              >
                {t("alarmPush.stock.transfer")}
              </Button>
            </Flex>
          </Col>
        </Row>
        <Typography.Paragraph type="secondary" className="kw-mt">
          {t("alarmPush.stock.poolHint")}
        </Typography.Paragraph>
      </Card>
      <Card className="kw-card" title={t("alarmPush.stock.tableTitle")}>
        <Table<SmsStock>
          rowKey="userId"
          size="middle"
          columns={columns}
          dataSource={rows}
          loading={stock.isFetching || members.isFetching}
          pagination={false}
          scroll={{ x: 760 }}
          onRow={(s) =>
            ({
              "data-testid": `stock-row-${s.userId}`,
              "data-name": s.name,
            }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <ListEmpty
                error={errorText(stock)}
                onRetry={() => stock.refetch()}
                description={t("alarmPush.stock.empty")}
              />
            ),
          }}
        />
      </Card>
      <AllocateModal
        eid={eid}
        pool={pool}
        members={rows}
        open={dialog?.kind === "allocate"}
        userId={dialog?.kind === "allocate" ? dialog.userId : undefined}
        onClose={() => setDialog(null)}
      />
      <TransferModal
        eid={eid}
        members={rows}
        open={dialog?.kind === "transfer"}
        fromUserId={dialog?.kind === "transfer" ? dialog.fromUserId : undefined}
        onClose={() => setDialog(null)}
      />
    </Flex>
  );
}

function memberOptions(members: SmsStock[], t: ReturnType<typeof useLang>["t"]) {
  return members.map((m) => ({
    value: m.userId,
    label: `${m.name || m.account} · ${t("alarmPush.stock.balanceShort", { n: m.balance })}`,
  }));
}

/** Not more than `available` (SPEC: stock never goes negative). */
function notMoreThan(available: number, text: string): FormRule {
  return {
    validator: async (_rule, value: number | null | undefined) => {
      if (typeof value === "number" && value > available) return Promise.reject(new Error(text));
    },
  };
}

function useRefreshStock(eid: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.alarmPushAll(eid) });
}

function AllocateModal(props: {
  eid: number;
  pool: number;
  members: SmsStock[];
  open: boolean;
  userId?: number;
  onClose: () => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(smsAllocateBody);
  const refresh = useRefreshStock(props.eid);
  const allocate = useMutation({ mutationFn: alarmPushApi.allocate });

  return (
    <FormModal
      title={t("alarmPush.stock.allocateTitle")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={allocate.isPending}
      submitTestId="allocate-submit"
      submitText={t("alarmPush.stock.allocate")}
      submitDisabled={props.pool <= 0}
    >
      <Typography.Paragraph type="secondary">
        {t("alarmPush.stock.allocateHint", { pool: props.pool })}
      </Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ userId: props.userId }}
        onFinish={async (values) => {
          const body = parseForm(smsAllocateBody, { ...values, eid: props.eid });
          let result: SmsStock;
          try {
            result = await allocate.mutateAsync(body);
          } catch {
            return;
          }
          message.success(
            t("alarmPush.stock.allocatedOk", {
              amount: body.amount,
              name: result.name,
              balance: result.balance,
            }),
          );
          await refresh();
          props.onClose();
        }}
      >
        <Form.Item name="userId" label={t("alarmPush.stock.member")} rules={[rule("userId")]}>
          <Select
            showSearch={{ optionFilterProp: "label" }}
            options={memberOptions(props.members, t)}
            placeholder={t("alarmPush.stock.pickMember")}
            data-testid="allocate-member"
          />
        </Form.Item>
        <Form.Item
          name="amount"
          label={t("alarmPush.stock.amount")}
          rules={[
            amountRule,
            notMoreThan(props.pool, t("alarmPush.stock.overPool", { available: props.pool })),
          ]}
        >
          <InputNumber
            className="kw-dc-amount"
            precision={0}
            min={1}
            addonAfter={t("alarmPush.unitSms")}
            data-testid="allocate-amount"
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}

function TransferModal(props: {
  eid: number;
  members: SmsStock[];
  open: boolean;
  fromUserId?: number;
  onClose: () => void;
}) {
  const { t } = useLang();
  const { message, modal } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(smsTransferBody);
  const refresh = useRefreshStock(props.eid);
  const transfer = useMutation({ mutationFn: alarmPushApi.transfer });
  const fromUserId = Form.useWatch("fromUserId", form) as number | undefined;
  const from = props.members.find((m) => m.userId === fromUserId);
  const available = from?.balance ?? 0;
  const nameOf = (userId: number) => {
    const m = props.members.find((x) => x.userId === userId);
    return m ? m.name || m.account : `#${userId}`;
  };

  return (
    <FormModal
      title={t("alarmPush.stock.transferTitle")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={transfer.isPending}
      submitTestId="transfer-submit"
      submitText={t("alarmPush.stock.transfer")}
    >
      <Typography.Paragraph type="secondary">
        {t("alarmPush.stock.transferHint")}
      </Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ fromUserId: props.fromUserId }}
        onFinish={(values) => {
          const body = parseForm(smsTransferBody, { ...values, eid: props.eid });
          // Moving stock away from someone is confirmed first.
          modal.confirm({
            title: t("alarmPush.stock.transferConfirm", {
              amount: body.amount,
              from: nameOf(body.fromUserId),
              to: nameOf(body.toUserId),
            }),
            okText: t("alarmPush.stock.transfer"),
            cancelText: t("common.cancel"),
            okButtonProps: { danger: true, "data-testid": "transfer-confirm" } as ButtonProps,
            onOk: async () => {
              try {
                await transfer.mutateAsync(body);
              } catch {
                return;
              }
              message.success(t("alarmPush.stock.transferred"));
              await refresh();
              props.onClose();
            },
          });
        }}
      >
        <Form.Item
          name="fromUserId"
          label={t("alarmPush.stock.from")}
          rules={[rule("fromUserId")]}
          extra={from ? t("alarmPush.stock.available", { available }) : undefined}
        >
          <Select
            showSearch={{ optionFilterProp: "label" }}
            options={memberOptions(
              props.members.filter((m) => m.balance > 0),
              t,
            )}
            placeholder={t("alarmPush.stock.pickMember")}
            onChange={() => void form.validateFields(["amount"]).catch(() => undefined)}
            data-testid="transfer-from"
          />
        </Form.Item>
        <Form.Item
          name="toUserId"
          label={t("alarmPush.stock.to")}
          dependencies={["fromUserId"]}
          rules={[rule("toUserId")]}
        >
          <Select
            showSearch={{ optionFilterProp: "label" }}
            options={memberOptions(props.members, t)}
            placeholder={t("alarmPush.stock.pickMember")}
            data-testid="transfer-to"
          />
        </Form.Item>
        <Form.Item
          name="amount"
          label={t("alarmPush.stock.amount")}
          dependencies={["fromUserId"]}
          rules={[
            amountRule,
            ...(from
              ? [notMoreThan(available, t("alarmPush.stock.overBalance", { available }))]
              : []),
          ]}
        >
          <InputNumber
            className="kw-dc-amount"
            precision={0}
            min={1}
            addonAfter={t("alarmPush.unitSms")}
            data-testid="transfer-amount"
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
