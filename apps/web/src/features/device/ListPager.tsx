import { PAGE_SIZE } from "@keyway/shared";
import { Pagination } from "antd";
import { useLang } from "../../i18n/index.ts";

/**
 * The server's pages of a device list (SPEC §7: 5000 devices a page). Only a list longer than
 * one page shows it, so every other list looks as before (docs/architecture/devices.md#personal-lists).
 */
export function ListPager({
  page,
  total,
  onChange,
  testId,
}: {
  page: number;
  total: number;
  onChange: (page: number) => void;
  testId: string;
}) {
  const { t } = useLang();
  if (total <= PAGE_SIZE.deviceLists) return null;
  return (
    <Pagination
      style={{ marginTop: 16 }}
      align="end"
      current={page}
      pageSize={PAGE_SIZE.deviceLists}
      total={total}
      showSizeChanger={false}
      showTotal={(all) => t("device.total", { total: all })}
      onChange={onChange}
      data-testid={testId}
    />
  );
}
