import { type SmsStock, smsAllocateBody } from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { App, Form, InputNumber, Select, Typography } from "antd";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { amountRule, memberOptions, notMoreThan, useRefreshStock } from "./stockForm.ts";

/** Allocates SMS from the enterprise's pool to a member. */
export function AllocateModal(props: {
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
