import { UserAddOutlined } from "@ant-design/icons";
import { DEFAULT_COUNTRY_CODE } from "@keyway/shared";
import type { FormRule } from "antd";
import { App, Button, Form, Input } from "antd";
import type { ReactNode } from "react";
import type { z } from "zod";
import { ApiError } from "../api/errors.ts";
import { showError } from "../api/queryClient.ts";
import { parseForm, useZodRule } from "../lib/zodRule.tsx";
import { CountryCodeSelect } from "./CountryCodeSelect.tsx";

/**
 * Adding a person by account (an e-mail, or a phone with its country code), inline: the
 * shared rules first, the country code only for a phone, and the server's "no such user" /
 * "already added" codes shown on the account field. Used for Bkeys, enterprise members and
 * project users.
 */
export function AccountAddForm<S extends z.ZodType<{ account: string; countryCode?: string }>>({
  schema,
  accountCodes,
  add,
  pending,
  successText,
  submitLabel,
  placeholder,
  testId,
  initialValues,
  className = "kw-inline-form",
  extra,
  onAdded,
  formTestId,
}: {
  schema: S;
  /** Server codes that belong to the account field. */
  accountCodes: readonly (string | number)[];
  /** Sends the parsed values; countryCode is left out for an e-mail. */
  add: (values: z.output<S>) => Promise<unknown>;
  pending: boolean;
  successText: string;
  submitLabel: string;
  placeholder: string;
  /** Prefix of the fields' test ids: <testId>-country, -account, -submit. */
  testId: string;
  initialValues?: Record<string, unknown>;
  className?: string;
  /** Further fields between the account and the button (with the same rules). */
  extra?: (rule: (field: string) => FormRule) => ReactNode;
  onAdded: () => unknown;
  formTestId?: string;
}) {
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(schema);
  const account = Form.useWatch("account", form) as string | undefined;
  const isEmail = (account ?? "").includes("@");

  return (
    <Form
      form={form}
      layout="inline"
      requiredMark={false}
      className={className}
      initialValues={{ countryCode: DEFAULT_COUNTRY_CODE, ...initialValues }}
      data-testid={formTestId}
      onFinish={async (values) => {
        const body = parseForm(schema, values);
        try {
          await add({
            ...body,
            countryCode: body.account.includes("@") ? undefined : body.countryCode,
          });
        } catch (error) {
          if (error instanceof ApiError && accountCodes.some((code) => error.is(code))) {
            form.setFields([{ name: "account", errors: [error.message] }]);
          } else showError(error);
          return;
        }
        message.success(successText);
        form.resetFields(["account"]);
        await onAdded();
      }}
    >
      {!isEmail && (
        <Form.Item name="countryCode" rules={[rule("countryCode")]}>
          <CountryCodeSelect data-testid={`${testId}-country`} />
        </Form.Item>
      )}
      <Form.Item name="account" rules={[rule("account")]}>
        <Input
          placeholder={placeholder}
          className="kw-w-220"
          autoComplete="off"
          data-testid={`${testId}-account`}
        />
      </Form.Item>
      {extra?.(rule)}
      <Form.Item>
        <Button
          type="primary"
          htmlType="submit"
          icon={<UserAddOutlined />}
          loading={pending}
          data-testid={`${testId}-submit`}
        >
          {submitLabel}
        </Button>
      </Form.Item>
    </Form>
  );
}
