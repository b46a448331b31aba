import { smsDailyAmountField } from "@keyway/shared";
import { Col, Form, InputNumber, Row } from "antd";
import { useLang } from "../../i18n/index.ts";
import { zodValueRule } from "../../lib/zodRule.tsx";

/** An empty number box is "nothing entered", not 0. */
const capRule = zodValueRule(smsDailyAmountField, (v: number | null | undefined) => v ?? undefined);

/** The two daily SMS caps (per phone, per device) of a settings form, side by side. */
export function CapFields(props: {
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
