import { KeyOutlined } from "@ant-design/icons";
import { Alert, Button, Flex, Modal, Typography } from "antd";
import { useLang } from "../../i18n/index.ts";

/**
 * A project's secret key, shown once (after creating the project or resetting the key):
 * the server masks it afterwards, so the modal says so and offers a copy button.
 */
export function KeyModal({
  secretKey,
  onClose,
}: {
  secretKey: string | null;
  onClose: () => void;
}) {
  const { t } = useLang();
  return (
    <Modal
      open={secretKey !== null}
      title={
        <Flex gap={8} align="center">
          <KeyOutlined />
          {t("project.keyTitle")}
        </Flex>
      }
      onCancel={onClose}
      mask={{ closable: false }}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose} data-testid="project-key-done">
          {t("project.keyDone")}
        </Button>
      }
      data-testid="project-key-modal"
    >
      <Flex vertical gap={12}>
        <Alert type="warning" showIcon title={t("project.keyWarning")} />
        <Typography.Paragraph
          code
          copyable={{ tooltips: [t("project.copy"), t("project.keyCopied")] }}
          className="kw-mb0"
          data-testid="project-key-value"
        >
          {secretKey}
        </Typography.Paragraph>
        <Typography.Text type="secondary">{t("project.keyHint")}</Typography.Text>
      </Flex>
    </Modal>
  );
}
