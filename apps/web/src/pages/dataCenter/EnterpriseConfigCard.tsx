import { ApiOutlined, MailOutlined, MessageOutlined, ShopOutlined } from "@ant-design/icons";
import { type EntMsgConfig, entMsgConfigBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Form,
  Input,
  Row,
  Skeleton,
  Statistic,
  Switch,
  Typography,
} from "antd";
import { useEffect } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { LoadFailed } from "../../components/LoadFailed.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { CapFields } from "./CapFields.tsx";
import { SettingRow } from "./parts.tsx";

/** The enterprise's push settings: pool, switches, caps and webhook (admins change them). */
export function EnterpriseConfigCard({ eid }: { eid: number }) {
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
        <LoadFailed error={config.error} onRetry={config.refetch} />
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
