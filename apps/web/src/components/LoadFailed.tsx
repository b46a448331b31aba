import { Button, Result } from "antd";
import { useLang } from "../i18n/index.ts";

/** A query that failed: its message and a retry (the query's own refetch). */
export function LoadFailed({ error, onRetry }: { error: Error; onRetry: () => unknown }) {
  const { t } = useLang();
  return (
    <Result
      status="warning"
      title={t("common.loadFailed")}
      subTitle={error.message}
      extra={<Button onClick={() => void onRetry()}>{t("common.retry")}</Button>}
    />
  );
}
