import {
  AppstoreOutlined,
  FolderOpenOutlined,
  FolderOutlined,
  KeyOutlined,
  PlusOutlined,
  UnorderedListOutlined,
} from "@ant-design/icons";
import { Button, Flex, Segmented } from "antd";
import {
  DeviceFilters,
  type useGroupFilterOptions,
} from "../../features/device/machineColumns.tsx";
import { useLang } from "../../i18n/index.ts";

export type View = "table" | "card";

/** The list's toolbar: search and group filters, table or cards, and the list's actions. */
export function DeviceToolbar(props: {
  search: string;
  onSearch: (value: string) => void;
  group: string;
  onGroup: (value: string) => void;
  groupOptions: ReturnType<typeof useGroupFilterOptions>;
  groupsLoading: boolean;
  view: View;
  onView: (view: View) => void;
  /** Rows selected in the table (0 in the card view): they can be moved to a group. */
  selected: number;
  onMoveSelected: () => void;
  onManageGroups: () => void;
  onRequestByCode: () => void;
  onAdd: () => void;
}) {
  const { t } = useLang();
  const { view, selected } = props;
  return (
    <Flex wrap gap={12} align="center" className="kw-toolbar">
      <DeviceFilters
        search={props.search}
        onSearch={props.onSearch}
        group={props.group}
        onGroup={props.onGroup}
        groupOptions={props.groupOptions}
        groupsLoading={props.groupsLoading}
        testIdPrefix="device"
      />
      <Segmented<View>
        value={view}
        onChange={props.onView}
        options={[
          {
            value: "table",
            icon: <UnorderedListOutlined />,
            label: <span data-testid="device-view-table">{t("device.viewTable")}</span>,
          },
          {
            value: "card",
            icon: <AppstoreOutlined />,
            label: <span data-testid="device-view-card">{t("device.viewCard")}</span>,
          },
        ]}
        data-testid="device-view-toggle"
      />
      <div className="kw-grow" />
      {selected > 0 && (
        <Button
          icon={<FolderOutlined />}
          onClick={props.onMoveSelected}
          data-testid="device-move-selected"
        >
          {t("group.moveSelected", { count: selected })}
        </Button>
      )}
      <Button
        icon={<FolderOpenOutlined />}
        onClick={props.onManageGroups}
        data-testid="groups-open"
      >
        {t("group.manage")}
      </Button>
      <Button
        icon={<KeyOutlined />}
        onClick={props.onRequestByCode}
        data-testid="device-request-access"
      >
        {t("access.byCode.button")}
      </Button>
      <Button type="primary" icon={<PlusOutlined />} onClick={props.onAdd} data-testid="device-add">
        {t("device.add")}
      </Button>
    </Flex>
  );
}
