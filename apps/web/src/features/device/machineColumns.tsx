import { SearchOutlined } from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { Input, Select, type TableProps, Typography } from "antd";
import { useLang } from "../../i18n/index.ts";
import { MachineCode, MachineNameCell, StateBadge } from "./MachineParts.tsx";

type Columns = NonNullable<TableProps<Machine>["columns"]>;

/** The name, code and state columns every machine table starts with (widths differ per table). */
export function useMachineColumns(widths: { name: number; code: number; state: number }): Columns {
  const { t } = useLang();
  return [
    {
      title: t("device.name"),
      key: "name",
      width: widths.name,
      render: (_: unknown, m) => <MachineNameCell machine={m} />,
    },
    {
      title: t("device.code"),
      dataIndex: "machine_code",
      width: widths.code,
      render: (code: string) => <MachineCode code={code} />,
    },
    {
      title: t("device.state"),
      key: "state",
      width: widths.state,
      render: (_: unknown, m) => <StateBadge machine={m} />,
    },
  ];
}

/** The group column ("no group" greyed out). */
export function useGroupColumn(width: number): Columns[number] {
  const { t } = useLang();
  return {
    title: t("device.group"),
    dataIndex: "group_name",
    width,
    ellipsis: true,
    render: (name: string) =>
      name || <Typography.Text type="secondary">{t("group.none")}</Typography.Text>,
  };
}

export const ALL_GROUPS = "all";

/** Options of the group filter: "all groups", then each group with its device count if known. */
export function useGroupFilterOptions(
  groups: { id: number; name: string; deviceCount?: number }[] | undefined,
) {
  const { t } = useLang();
  return [
    { value: ALL_GROUPS, label: t("group.all") },
    ...(groups ?? []).map((g) => ({
      value: String(g.id),
      label: g.deviceCount !== undefined ? `${g.name} (${g.deviceCount})` : g.name,
    })),
  ];
}

/** Search box + group filter at the start of a device list toolbar. */
export function DeviceFilters({
  search,
  onSearch,
  group,
  onGroup,
  groupOptions,
  groupsLoading,
  testIdPrefix,
}: {
  search: string;
  onSearch: (value: string) => void;
  group: string;
  onGroup: (value: string) => void;
  groupOptions: { value: string; label: string }[];
  groupsLoading: boolean;
  /** `device` → `device-search`, `device-group-filter`. */
  testIdPrefix: string;
}) {
  const { t } = useLang();
  return (
    <>
      <Input
        allowClear
        prefix={<SearchOutlined />}
        placeholder={t("device.searchPlaceholder")}
        value={search}
        onChange={(e) => onSearch(e.target.value)}
        className="kw-toolbar-search"
        data-testid={`${testIdPrefix}-search`}
      />
      <Select
        value={group}
        onChange={onGroup}
        options={groupOptions}
        loading={groupsLoading}
        className="kw-toolbar-select"
        popupMatchSelectWidth={false}
        data-testid={`${testIdPrefix}-group-filter`}
      />
    </>
  );
}
