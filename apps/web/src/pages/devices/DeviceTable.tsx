import type { Machine } from "@keyway/shared";
import { Empty, Table, type TableProps } from "antd";
import { useLang } from "../../i18n/index.ts";
import { useViewportHeight } from "../../lib/useViewportHeight.ts";

/** The device table: virtual rows under the toolbar, selectable for moving to a group. */
export function DeviceTable({
  columns,
  list,
  loading,
  selection,
  onSelect,
}: {
  columns: TableProps<Machine>["columns"];
  list: readonly Machine[];
  loading: boolean;
  selection: React.Key[];
  onSelect: (keys: React.Key[]) => void;
}) {
  const { t } = useLang();
  const tableHeight = useViewportHeight(330);
  return (
    <div data-testid="device-table">
      <Table<Machine>
        rowKey="machine_id"
        size="middle"
        virtual
        columns={columns}
        dataSource={list}
        loading={loading}
        pagination={false}
        scroll={{ x: 1123, y: tableHeight }}
        rowSelection={{
          selectedRowKeys: selection,
          onChange: (keys) => onSelect(keys),
          columnWidth: 48,
        }}
        onRow={(m) =>
          ({ "data-testid": `device-row-${m.machine_code}` }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("device.noMatch")} />
          ),
        }}
      />
    </div>
  );
}
