import { type SmsStock, smsTransferBody } from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { App, type ButtonProps, Form, InputNumber, Select, Typography } from "antd";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { amountRule, memberOptions, notMoreThan, useRefreshStock } from "./stockForm.ts";

/** Moves SMS from one member to another, confirmed first. */
export function TransferModal(props: {
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
