import type { DeviceGroup } from "@keyway/shared";
import { Select } from "antd";
import { useLang } from "../../i18n/index.ts";

interface Props {
  groups: readonly DeviceGroup[] | undefined;
  loading?: boolean;
  value?: number;
  onChange?: (value: number) => void;
  id?: string;
  "data-testid"?: string;
  /** Offer "No group" (value 0). */
  allowNone?: boolean;
}

/** A device-group picker for forms; 0 = no group. */
export function GroupSelect({
  groups,
  loading,
  value,
  onChange,
  id,
  allowNone = true,
  ...rest
}: Props) {
  const { t } = useLang();
  const options = [
    ...(allowNone ? [{ value: 0, label: t("group.none") }] : []),
    ...(groups ?? []).map((g) => ({ value: g.id, label: g.name })),
  ];
  return (
    <Select
      id={id}
      data-testid={rest["data-testid"]}
      value={value}
      onChange={onChange}
      loading={loading}
      options={options}
      placeholder={t("group.pick")}
      showSearch={{ optionFilterProp: "label" }}
    />
  );
}
