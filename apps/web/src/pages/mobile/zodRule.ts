import { validationMessage } from "@keyway/shared";
import type { FormItemProps } from "antd-mobile";
import { useCallback } from "react";
import type { z } from "zod";
import { useLang } from "../../i18n/index.ts";
import { zodFieldIssue } from "../../lib/zodIssue.ts";

type Rule = NonNullable<FormItemProps["rules"]>[number];

/**
 * antd-mobile Form rules backed by a shared zod form schema (the same schemas as the desktop
 * forms and the server): `rule("email")` checks the field against the whole form's values.
 */
export function useMobileZodRule(schema: z.ZodType) {
  const { lang } = useLang();
  return useCallback(
    (field: string): Rule =>
      (form: { getFieldsValue: (all: true) => Record<string, unknown> }) => ({
        validator: async () => {
          const key = zodFieldIssue(schema, form.getFieldsValue(true), field);
          if (key) throw new Error(validationMessage(key, lang));
        },
      }),
    [schema, lang],
  );
}
