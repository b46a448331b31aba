import { KeyOutlined, PlusOutlined } from "@ant-design/icons";
import { Button, Empty, Space } from "antd";
import { useLang } from "../../i18n/index.ts";

/** No device at all: add one, or request access to someone else's by its code. */
export function NoDevices({ onAdd, onRequest }: { onAdd: () => void; onRequest: () => void }) {
  const { t } = useLang();
  return (
    <Empty
      className="kw-empty-block"
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={t("device.emptyAll")}
      data-testid="device-empty"
    >
      <Space wrap>
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={onAdd}
          data-testid="device-empty-add"
        >
          {t("device.add")}
        </Button>
        <Button
          icon={<KeyOutlined />}
          onClick={onRequest}
          data-testid="device-empty-request-access"
        >
          {t("access.byCode.button")}
        </Button>
      </Space>
    </Empty>
  );
}
