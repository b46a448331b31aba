import { Button, Form, Input } from "antd-mobile";
import { machineCodeForm } from "../../features/device/codeLookup.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { useMobileZodRule } from "./zodRule.ts";

/** The machine code to look up first, when the sheet is not opened for a known device. */
export function RequestCodeForm({
  form,
  loading,
  error,
  onLookUp,
}: {
  form: ReturnType<typeof Form.useForm>[0];
  loading: boolean;
  error: string | null;
  onLookUp: (machineCode: string) => void;
}) {
  const { t } = useLang();
  const codeRule = useMobileZodRule(machineCodeForm);
  return (
    <Form
      form={form}
      layout="vertical"
      onFinish={(v) => onLookUp(parseForm(machineCodeForm, v).machineCode)}
      footer={
        <Button
          block
          color="primary"
          type="submit"
          loading={loading}
          data-testid="m-request-lookup"
        >
          {t("m.request.lookUp")}
        </Button>
      }
    >
      <Form.Item name="machineCode" label={t("device.code")} rules={[codeRule("machineCode")]}>
        <Input placeholder={t("device.codePlaceholder")} data-testid="m-request-code" />
      </Form.Item>
      {error && (
        <div className="kwm-form-error" role="alert" data-testid="m-request-lookup-error">
          {error}
        </div>
      )}
    </Form>
  );
}
