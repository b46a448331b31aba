import { LIMITS } from "@keyway/shared";
import type { FormRule } from "antd";
import { Form, Input, InputNumber, Switch } from "antd";
import { useLang } from "../../i18n/index.ts";

/**
 * The fields a project's owner sets (SPEC §5: name 1-20, description at most 50; the report
 * server, reporting on/off, the interval in hours, visit URLs). `rule` is a shared zod rule.
 */
export function ProjectFields({
  rule,
  disabled,
  prefix,
}: {
  rule: (field: string) => FormRule;
  disabled?: boolean;
  /** data-testid prefix of the inputs. */
  prefix: string;
}) {
  const { t } = useLang();
  return (
    <>
      <Form.Item name="name" label={t("project.name")} rules={[rule("name")]} required>
        <Input
          disabled={disabled}
          placeholder={t("project.namePlaceholder")}
          showCount={{ formatter: ({ count }) => `${count} / ${LIMITS.projectName.max}` }}
          data-testid={`${prefix}-name`}
        />
      </Form.Item>
      <Form.Item name="description" label={t("project.description")} rules={[rule("description")]}>
        <Input.TextArea
          disabled={disabled}
          autoSize={{ minRows: 2, maxRows: 3 }}
          placeholder={t("project.descriptionPlaceholder")}
          showCount={{
            formatter: ({ count }) => `${count} / ${LIMITS.projectDescription.max}`,
          }}
          data-testid={`${prefix}-description`}
        />
      </Form.Item>
      <Form.Item
        name="server"
        label={t("project.server")}
        rules={[rule("server")]}
        extra={t("project.serverHint")}
      >
        <Input
          disabled={disabled}
          placeholder={t("project.serverPlaceholder")}
          autoComplete="off"
          data-testid={`${prefix}-server`}
        />
      </Form.Item>
      <Form.Item
        name="report_state"
        label={t("project.reportState")}
        valuePropName="checked"
        rules={[rule("report_state")]}
      >
        <Switch
          disabled={disabled}
          checkedChildren={t("project.reportOn")}
          unCheckedChildren={t("project.reportOff")}
          data-testid={`${prefix}-report`}
        />
      </Form.Item>
      <Form.Item
        name="interval"
        label={t("project.interval")}
        rules={[rule("interval")]}
        extra={t("project.intervalHint")}
      >
        <InputNumber
          disabled={disabled}
          min={0}
          max={24}
          precision={0}
          suffix={t("project.hours")}
          className="kw-w-220"
          data-testid={`${prefix}-interval`}
        />
      </Form.Item>
      <Form.Item
        name="enable_get_visit_url"
        label={t("project.visitUrl")}
        valuePropName="checked"
        rules={[rule("enable_get_visit_url")]}
        extra={t("project.visitUrlHint")}
      >
        <Switch disabled={disabled} data-testid={`${prefix}-visit`} />
      </Form.Item>
    </>
  );
}
