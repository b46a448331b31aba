import { validationMessage } from "@keyway/shared";
import type { FormRule } from "antd";
import { useCallback } from "react";
import type { z } from "zod";
import { useLang } from "../i18n/index.ts";
import { zodFieldIssue } from "./zodIssue.ts";

type Values = Record<string, unknown>;

/** A validation message that follows the language (also for errors already on screen). */
function ValidationText({ messageKey }: { messageKey: string }) {
  const { lang } = useLang();
  return <>{validationMessage(messageKey, lang)}</>;
}

/**
 * antd Form rules backed by a shared zod form schema, with localized messages:
 * `const rule = useZodRule(loginByEmailForm); <Form.Item name="email" rules={[rule("email")]}>`.
 */
export function useZodRule(schema: z.ZodType) {
  return useCallback(
    (field: string): FormRule =>
      (form) => ({
        validator: async () => {
          const key = zodFieldIssue(schema, form.getFieldsValue(true) as Values, field);
          // antd shows a React element rejected by a validator as the error itself.
          if (key) return Promise.reject(<ValidationText messageKey={key} />);
        },
      }),
    [schema],
  );
}

/** Parses submitted values with the schema (trimmed, normalized country code). */
export function parseForm<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  return schema.parse(values);
}

/**
 * A rule for a control whose value is not a schema field as such (a composite input, or a
 * field validated by one field schema of the shared contract): `toInput` maps the control's
 * value to what `schema` parses; the first issue's message key is shown, localized.
 */
export function zodValueRule<V>(schema: z.ZodType, toInput: (value: V) => unknown): FormRule {
  return {
    validator: async (_rule, value: V) => {
      const result = schema.safeParse(toInput(value));
      if (result.success) return;
      const key = result.error.issues[0]?.message ?? "v.required";
      return Promise.reject(<ValidationText messageKey={key} />);
    },
  };
}
