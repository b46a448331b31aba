import { MailOutlined, MessageOutlined, WalletOutlined } from "@ant-design/icons";
import { setUserMsgConfigBody, type UserMsgConfig } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Card, Form, Skeleton, Switch, Typography } from "antd";
import { useEffect } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { LoadFailed } from "../../components/LoadFailed.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { CapFields } from "./CapFields.tsx";
import { SettingRow } from "./parts.tsx";

/** The user's own push switches, balance and daily SMS caps (personal or in the enterprise). */
export function UserConfigCard({ eid }: { eid: number }) {
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
        <LoadFailed error={config.error} onRetry={config.refetch} />
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
