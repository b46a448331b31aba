import {
  ApiOutlined,
  MailOutlined,
  MessageOutlined,
  ShopOutlined,
  WalletOutlined,
} from "@ant-design/icons";
import {
  type EntMsgConfig,
  entMsgConfigBody,
  setUserMsgConfigBody,
  smsDailyAmountField,
  type UserMsgConfig,
} from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Flex,
  Form,
  Input,
  InputNumber,
  Result,
  Row,
  Skeleton,
  Statistic,
  Switch,
  Typography,
} from "antd";
import { useEffect } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule, zodValueRule } from "../../lib/zodRule.tsx";
import { SettingRow } from "./parts.tsx";

/** An empty number box is "nothing entered", not 0. */
const capRule = zodValueRule(smsDailyAmountField, (v: number | null | undefined) => v ?? undefined);

/**
 * Push settings. Personal context: the user's own switches and caps. Enterprise context: the
 * enterprise's settings (admins change them) and the member's own switches and caps in it.
 */
/** The two daily SMS caps (per phone, per device) of a settings form, side by side. */
function CapFields(props: {
  phone: { name: string; label: string };
  device: { name: string; label: string };
  testIdPrefix: string;
}) {
  const { t } = useLang();
  const field = (
    f: { name: string; label: string },
    hint: "userSmsDailyAmountHint" | "machineSmsDailyAmountHint",
    testId: string,
  ) => (
    <Col xs={24} md={12}>
      <Form.Item
        name={f.name}
        label={f.label}
        extra={t(`alarmPush.config.${hint}`)}
        rules={[capRule]}
      >
        <InputNumber
          className="kw-dc-amount"
          precision={0}
          addonAfter={t("alarmPush.unitPerDay")}
          data-testid={testId}
        />
      </Form.Item>
    </Col>
  );
  return (
    <Row gutter={16}>
      {field(props.phone, "userSmsDailyAmountHint", `${props.testIdPrefix}-user-cap`)}
      {field(props.device, "machineSmsDailyAmountHint", `${props.testIdPrefix}-machine-cap`)}
    </Row>
  );
}

export function PushConfigTab({ eid }: { eid: number }) {
  return (
    <Flex vertical gap={16}>
      {eid !== 0 && <EnterpriseConfigCard eid={eid} />}
      <UserConfigCard eid={eid} />
    </Flex>
  );
}

function UserConfigCard({ eid }: { eid: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const key = queryKeys.alarmPush(eid, "userConfig");
  const config = useQuery({ queryKey: key, queryFn: () => alarmPushApi.userConfig(eid) });
  const [form] = Form.useForm();

  const save = useMutation({
    mutationFn: alarmPushApi.setUserConfig,
    onSuccess: (data) => {
      queryClient.setQueryData<UserMsgConfig>(key, data);
      message.success(t("alarmPush.saved"));
    },
  });

  const data = config.data;
  // The caps as stored (a switch toggled meanwhile does not reset what is being typed).
  const userCap = data?.userSmsDailyAmount;
  const machineCap = data?.machineSmsDailyAmount;
  useEffect(() => {
    if (userCap !== undefined) {
      form.setFieldsValue({ userSmsDailyAmount: userCap, machineSmsDailyAmount: machineCap });
    }
  }, [userCap, machineCap, form]);

  const title = eid === 0 ? t("alarmPush.config.personalTitle") : t("alarmPush.config.mineTitle");
  if (config.isError) {
    return (
      <Card title={title} className="kw-card">
        <Result
          status="warning"
          title={t("common.loadFailed")}
          subTitle={config.error.message}
          extra={<Button onClick={() => config.refetch()}>{t("common.retry")}</Button>}
        />
      </Card>
    );
  }
  return (
    <Card title={title} className="kw-card" data-testid="push-config-user">
      {!data ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : (
        <>
          <div className="kw-settings">
            <SettingRow
              testId="push-sms-row"
              icon={<MessageOutlined />}
              label={t("alarmPush.config.smsSwitch")}
              hint={
                data.phone
                  ? t("alarmPush.config.smsTo", { phone: data.phone })
                  : t("alarmPush.config.noPhone")
              }
              action={
                <Switch
                  checked={data.userSmsFlag === 1}
                  loading={save.isPending && save.variables?.userSmsFlag !== undefined}
                  onChange={(on) => save.mutate({ eid, userSmsFlag: on })}
                  data-testid="push-sms-switch"
                />
              }
            />
            <SettingRow
              testId="push-email-row"
              icon={<MailOutlined />}
              label={t("alarmPush.config.emailSwitch")}
              hint={
                data.email
                  ? t("alarmPush.config.emailTo", { email: data.email })
                  : t("alarmPush.config.noEmail")
              }
              action={
                <Switch
                  checked={data.userEmailFlag === 1}
                  loading={save.isPending && save.variables?.userEmailFlag !== undefined}
                  onChange={(on) => save.mutate({ eid, userEmailFlag: on })}
                  data-testid="push-email-switch"
                />
              }
            />
            <SettingRow
              icon={<WalletOutlined />}
              label={t("alarmPush.config.balance")}
              hint={
                eid === 0 ? t("alarmPush.config.balanceHint") : t("alarmPush.config.entBalanceHint")
              }
              action={
                <Typography.Text strong className="kw-dc-number" data-testid="push-balance">
                  {data.balance}
                </Typography.Text>
              }
            />
          </div>
          <Typography.Title level={5} className="kw-dc-subtitle">
            {t("alarmPush.config.caps")}
          </Typography.Title>
          <Form
            form={form}
            layout="vertical"
            requiredMark={false}
            onFinish={(values) => {
              const body = parseForm(setUserMsgConfigBody, { ...values, eid });
              save.mutate(body);
            }}
          >
            <CapFields
              phone={{
                name: "userSmsDailyAmount",
                label: t("alarmPush.config.userSmsDailyAmount"),
              }}
              device={{
                name: "machineSmsDailyAmount",
                label: t("alarmPush.config.machineSmsDailyAmount"),
              }}
              testIdPrefix="push"
            />
            <Button
              type="primary"
              htmlType="submit"
              loading={save.isPending && save.variables?.userSmsDailyAmount !== undefined}
              data-testid="push-caps-save"
            >
              {t("common.save")}
            </Button>
          </Form>
        </>
      )}
    </Card>
  );
}

function EnterpriseConfigCard({ eid }: { eid: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const key = queryKeys.alarmPush(eid, "entConfig");
  const config = useQuery({ queryKey: key, queryFn: () => alarmPushApi.entConfig(eid) });
  const [form] = Form.useForm();
  const rule = useZodRule(entMsgConfigBody);

  const save = useMutation({
    mutationFn: alarmPushApi.setEntConfig,
    onSuccess: (data) => {
      queryClient.setQueryData<EntMsgConfig>(key, data);
      message.success(t("alarmPush.saved"));
    },
  });

  const data = config.data;
  const userCap = data?.smsDailyAmount;
  const machineCap = data?.smsMachineDailyAmount;
  const webhookUrl = data?.webhookUrl;
  useEffect(() => {
    if (userCap !== undefined) {
      form.setFieldsValue({
        smsDailyAmount: userCap,
        smsMachineDailyAmount: machineCap,
        webhookUrl,
      });
    }
  }, [userCap, machineCap, webhookUrl, form]);

  const title = (
    <span>
      <ShopOutlined /> {t("alarmPush.config.entTitle")}
    </span>
  );
  if (config.isError) {
    return (
      <Card title={title} className="kw-card">
        <Result
          status="warning"
          title={t("common.loadFailed")}
          subTitle={config.error.message}
          extra={<Button onClick={() => config.refetch()}>{t("common.retry")}</Button>}
        />
      </Card>
    );
  }
  const readOnly = !data?.isAdmin;
  return (
    <Card title={title} className="kw-card" data-testid="push-config-ent">
      {!data ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : (
        <>
          {readOnly && (
            <Alert
              type="info"
              showIcon
              className="kw-mb"
              title={t("alarmPush.adminOnly")}
              data-testid="push-ent-readonly"
            />
          )}
          <Row gutter={16} className="kw-mb">
            <Col xs={12} md={6}>
              <Statistic
                title={t("alarmPush.stock.pool")}
                value={data.poolBalance}
                data-testid="push-ent-pool"
              />
            </Col>
            <Col xs={12} md={6}>
              <Statistic title={t("alarmPush.stock.allocated")} value={data.allocatedBalance} />
            </Col>
          </Row>
          <div className="kw-settings">
            <SettingRow
              icon={<MessageOutlined />}
              label={t("alarmPush.config.entSms")}
              hint={t("alarmPush.config.entSmsHint")}
              action={
                <Switch
                  checked={data.smsFlag === 1}
                  disabled={readOnly}
                  loading={save.isPending && save.variables?.smsFlag !== undefined}
                  onChange={(on) => save.mutate({ eid, smsFlag: on })}
                  data-testid="push-ent-sms-switch"
                />
              }
            />
            <SettingRow
              icon={<MailOutlined />}
              label={t("alarmPush.config.entEmail")}
              hint={t("alarmPush.config.entEmailHint")}
              action={
                <Switch
                  checked={data.emailFlag === 1}
                  disabled={readOnly}
                  loading={save.isPending && save.variables?.emailFlag !== undefined}
                  onChange={(on) => save.mutate({ eid, emailFlag: on })}
                  data-testid="push-ent-email-switch"
                />
              }
            />
          </div>
          <Form
            form={form}
            layout="vertical"
            requiredMark={false}
            disabled={readOnly}
            onFinish={(values: Record<string, unknown>) => {
              const secret = String(values.webhookSecret ?? "");
              const body = parseForm(entMsgConfigBody, {
                eid,
                smsDailyAmount: values.smsDailyAmount,
                smsMachineDailyAmount: values.smsMachineDailyAmount,
                webhookUrl: values.webhookUrl ?? "",
                // Empty keeps the stored secret.
                webhookSecret: secret === "" ? undefined : secret,
              });
              save.mutate(body, { onSuccess: () => form.setFieldValue("webhookSecret", "") });
            }}
          >
            <Typography.Title level={5} className="kw-dc-subtitle">
              {t("alarmPush.config.caps")}
            </Typography.Title>
            <CapFields
              phone={{ name: "smsDailyAmount", label: t("alarmPush.config.smsDailyAmount") }}
              device={{
                name: "smsMachineDailyAmount",
                label: t("alarmPush.config.smsMachineDailyAmount"),
              }}
              testIdPrefix="push-ent"
            />
            <Typography.Title level={5} className="kw-dc-subtitle">
              <ApiOutlined /> {t("alarmPush.config.webhook")}
            </Typography.Title>
            <Typography.Paragraph type="secondary">
              {t("alarmPush.config.webhookHint")}
            </Typography.Paragraph>
            <Row gutter={16}>
              <Col xs={24} md={14}>
                <Form.Item
                  name="webhookUrl"
                  label={t("alarmPush.config.webhookUrl")}
                  rules={[rule("webhookUrl")]}
                >
                  <Input
                    allowClear
                    placeholder="https://example.com/keyway/alarms"
                    data-testid="push-ent-webhook-url"
                  />
                </Form.Item>
              </Col>
              <Col xs={24} md={10}>
                <Form.Item
                  name="webhookSecret"
                  label={t("alarmPush.config.webhookSecret")}
                  extra={
                    data.hasWebhookSecret
                      ? t("alarmPush.config.webhookSecretKept")
                      : t("alarmPush.config.webhookSecretNone")
                  }
                  rules={[rule("webhookSecret")]}
                >
                  <Input.Password
                    autoComplete="new-password"
                    data-testid="push-ent-webhook-secret"
                  />
                </Form.Item>
              </Col>
            </Row>
            {!readOnly && (
              <Button
                type="primary"
                htmlType="submit"
                loading={save.isPending && save.variables?.smsDailyAmount !== undefined}
                data-testid="push-ent-save"
              >
                {t("common.save")}
              </Button>
            )}
          </Form>
        </>
      )}
    </Card>
  );
}
