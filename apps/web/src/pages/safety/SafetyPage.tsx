import { DeleteOutlined, WarningOutlined } from "@ant-design/icons";
import { Button, Card, Flex, Typography } from "antd";
import { useState } from "react";
import { useUserInfo } from "../../api/hooks.ts";
import { useLang } from "../../i18n/index.ts";
import { AccountCard } from "./AccountCard.tsx";
import { DeleteAccountModal } from "./DeleteAccountModal.tsx";
import { TerminalTable } from "./TerminalTable.tsx";
import { TwoFactorCard } from "./TwoFactorCard.tsx";

/** /safety: personal information and security center (SPEC §2). */
export function SafetyPage() {
  const { t } = useLang();
  const userInfo = useUserInfo();
  const [deleting, setDeleting] = useState(false);

  return (
    <div className="kw-page" data-testid="safety-page">
      <Typography.Title level={4} className="kw-page-title">
        {t("safety.title")}
      </Typography.Title>
      <Flex vertical gap={16}>
        <AccountCard user={userInfo.data} loading={userInfo.isPending} />
        <TwoFactorCard />
        <Card title={t("safety.terminals")} className="kw-card">
          <Typography.Paragraph type="secondary">{t("safety.terminalsHint")}</Typography.Paragraph>
          <TerminalTable />
        </Card>
        <Card
          className="kw-card kw-danger-card"
          title={
            <span className="kw-danger-title">
              <WarningOutlined /> {t("safety.dangerZone")}
            </span>
          }
        >
          <div className="kw-setting-row">
            <div className="kw-setting-main">
              <div className="kw-setting-label">{t("safety.deleteAccount")}</div>
              <div className="kw-setting-hint">{t("safety.deleteAccountHint")}</div>
            </div>
            <div className="kw-setting-action">
              <Button
                danger
                icon={<DeleteOutlined />}
                onClick={() => setDeleting(true)}
                data-testid="delete-account"
              >
                {t("safety.deleteAccount")}
              </Button>
            </div>
          </div>
        </Card>
      </Flex>
      <DeleteAccountModal open={deleting} onClose={() => setDeleting(false)} />
    </div>
  );
}
