import { PlusOutlined } from "@ant-design/icons";
import { Button, Typography } from "antd";
import { useState } from "react";
import { useLang } from "../../i18n/index.ts";
import type { EnterpriseInfo } from "../../store/app.ts";
import { CreateOwnEnterpriseModal } from "./CreateOwnEnterpriseModal.tsx";
import { useCreationBlocker, useEnterpriseCreation } from "./enterpriseCreation.ts";

/**
 * "Create enterprise" with its dialog, where the user may create one; where they may not, the
 * reason instead (the operator's brand switch, or the limit), so the action is never a dead end.
 * `onOpen`: the caller renders the dialog itself — needed where this button disappears once
 * the enterprise exists (the dialog's next steps must stay on screen).
 */
export function CreateEnterpriseAction({
  type = "primary",
  onCreated,
  onOpen,
  testId = "ent-create-open",
}: {
  type?: "primary" | "default";
  onCreated?: (enterprise: EnterpriseInfo) => void;
  onOpen?: () => void;
  testId?: string;
}) {
  const { t } = useLang();
  const [open, setOpen] = useState(false);
  const { query, canCreate } = useEnterpriseCreation();
  const blocker = useCreationBlocker();
  if (query.isPending) return null;
  if (blocker) {
    return (
      <Typography.Text type="secondary" data-testid="ent-create-blocked">
        {blocker}
      </Typography.Text>
    );
  }
  if (!canCreate) return null;
  return (
    <>
      <Button
        type={type}
        icon={<PlusOutlined />}
        onClick={() => (onOpen ? onOpen() : setOpen(true))}
        data-testid={testId}
      >
        {t("entCreate.action")}
      </Button>
      {!onOpen && (
        <CreateOwnEnterpriseModal
          open={open}
          onClose={() => setOpen(false)}
          onCreated={onCreated}
        />
      )}
    </>
  );
}
