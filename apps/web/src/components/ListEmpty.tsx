import { Button, Empty } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../i18n/index.ts";

/** A table's empty state: the load error with a retry button, or the "nothing here" text. */
export function ListEmpty({
  error,
  onRetry,
  description,
}: {
  /** The load error's message, when loading failed. */
  error: string | null;
  onRetry: () => void;
  description: ReactNode;
}) {
  const { t } = useLang();
  return error !== null ? (
    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={error}>
      <Button size="small" onClick={onRetry}>
        {t("common.retry")}
      </Button>
    </Empty>
  ) : (
    <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={description} />
  );
}
