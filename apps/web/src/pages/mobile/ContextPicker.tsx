import { DownOutlined } from "@ant-design/icons";
import { ActionSheet } from "antd-mobile";
import { type ReactNode, useState } from "react";
import { useEnterpriseList } from "../../api/hooks.ts";
import { useLang } from "../../i18n/index.ts";
import { type EnterpriseInfo, selectCurrentContext, useAppStore } from "../../store/app.ts";
import { MobileBrand } from "./parts.tsx";

/**
 * The context on the phone (SPEC §1: personal, or each enterprise the user belongs to): the
 * desktop's choice, kept in the same store, so both show the same context.
 */
export function useMobileContext() {
  useEnterpriseList();
  const current = useAppStore(selectCurrentContext);
  const enterprises = useAppStore((s) => s.enterprisesList);
  const selectContext = useAppStore((s) => s.selectContext);
  return { current, enterprises, choose: (e: EnterpriseInfo | null) => selectContext(e) };
}

/**
 * The header's title: `fallback` (default the brand) while the user has no enterprise, otherwise the current context's name opening a sheet of personal devices
 * and each enterprise.
 */
export function ContextPicker({ fallback }: { fallback?: ReactNode }) {
  const { t } = useLang();
  const { current, enterprises, choose } = useMobileContext();
  const [open, setOpen] = useState(false);
  if (enterprises.length === 0) return fallback ?? <MobileBrand />;
  const label = current.eid === 0 ? t("m.context.personal") : current.name;
  return (
    <>
      <button
        type="button"
        className="kwm-context"
        onClick={() => setOpen(true)}
        data-testid="m-context"
        data-eid={current.eid}
      >
        <span>{label}</span>
        <DownOutlined style={{ fontSize: 12 }} />
      </button>
      <ActionSheet
        visible={open}
        onClose={() => setOpen(false)}
        extra={t("m.context.title")}
        cancelText={t("common.cancel")}
        actions={[
          {
            key: "0",
            text: (
              <span data-testid="m-context-0" data-current={current.eid === 0 ? 1 : 0}>
                {t("m.context.personal")}
              </span>
            ),
            onClick: () => choose(null),
          },
          ...enterprises.map((e) => ({
            key: String(e.eid),
            text: (
              <span data-testid={`m-context-${e.eid}`} data-current={current.eid === e.eid ? 1 : 0}>
                {e.name}
              </span>
            ),
            onClick: () => choose(e),
          })),
        ]}
        closeOnAction
      />
    </>
  );
}
