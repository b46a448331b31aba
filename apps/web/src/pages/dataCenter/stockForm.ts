import { type SmsStock, smsAmountField } from "@keyway/shared";
import { useQueryClient } from "@tanstack/react-query";
import type { FormRule } from "antd";
import { queryKeys } from "../../api/keys.ts";
import type { useLang } from "../../i18n/index.ts";
import { zodValueRule } from "../../lib/zodRule.tsx";

export const amountRule = zodValueRule(
  smsAmountField,
  (v: number | null | undefined) => v ?? undefined,
);

/** The members a stock dialog offers, with their balance. */
export function memberOptions(members: SmsStock[], t: ReturnType<typeof useLang>["t"]) {
  return members.map((m) => ({
    value: m.userId,
    label: `${m.name || m.account} · ${t("alarmPush.stock.balanceShort", { n: m.balance })}`,
  }));
}

/** Not more than `available` (SPEC: stock never goes negative). */
export function notMoreThan(available: number, text: string): FormRule {
  return {
    validator: async (_rule, value: number | null | undefined) => {
      if (typeof value === "number" && value > available) return Promise.reject(new Error(text));
    },
  };
}

/** Reads every stock figure of the enterprise again after a change. */
export function useRefreshStock(eid: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.alarmPushAll(eid) });
}
