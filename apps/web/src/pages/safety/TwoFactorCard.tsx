import { KeyOutlined, SafetyCertificateOutlined } from "@ant-design/icons";
import { useQuery } from "@tanstack/react-query";
import { Alert, Button, Card, Flex, Skeleton, Space, Tag, Typography } from "antd";
import { useState } from "react";
import { TWO_FACTOR_STATUS_KEY, twoFactorApi } from "../../api/twoFactor.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { DisableTwoFactorModal } from "./DisableTwoFactorModal.tsx";
import { NewRecoveryCodesModal } from "./NewRecoveryCodesModal.tsx";
import { SetupTwoFactorModal } from "./SetupTwoFactorModal.tsx";

/** With this many recovery codes left (or fewer), the card asks for new ones. */
const FEW_CODES = 3;

/** Security center: two-factor login on or off, recovery codes left, and the actions. */
export function TwoFactorCard() {
  const { t } = useLang();
  const status = useQuery({ queryKey: TWO_FACTOR_STATUS_KEY, queryFn: twoFactorApi.status });
  const [modal, setModal] = useState<"setup" | "disable" | "codes" | null>(null);
  const data = status.data;

  return (
    <Card
      title={
        <span>
          <SafetyCertificateOutlined /> {t("twoFactor.cardTitle")}
        </span>
      }
      extra={
        data && (
          <Tag color={data.enabled ? "success" : "default"} data-testid="twofactor-state">
            {data.enabled ? t("twoFactor.on") : t("twoFactor.off")}
          </Tag>
        )
      }
      className="kw-card"
      data-testid="twofactor-card"
    >
      <div className="kw-setting-row">
        <div className="kw-setting-main">
          <div className="kw-setting-hint">{t("twoFactor.cardHint")}</div>
          {status.isPending && <Skeleton active paragraph={{ rows: 1 }} title={false} />}
          {status.isError && (
            <Alert
              type="error"
              showIcon
              className="kw-mt"
              title={t("twoFactor.loadFailed")}
              action={
                <Button size="small" onClick={() => status.refetch()}>
                  {t("common.retry")}
                </Button>
              }
            />
          )}
          {data?.enabled && (
            <Flex vertical gap={4} className="kw-mt-sm">
              {data.enabledTime && (
                <Typography.Text type="secondary">
                  {t("twoFactor.since", { time: formatDateTime(data.enabledTime) })}
                </Typography.Text>
              )}
              {data.recoveryCodesLeft <= FEW_CODES ? (
                <Typography.Text type="warning" data-testid="twofactor-codes-left">
                  {t("twoFactor.fewCodesLeft", { count: data.recoveryCodesLeft })}
                </Typography.Text>
              ) : (
                <Typography.Text type="secondary" data-testid="twofactor-codes-left">
                  {t("twoFactor.codesLeft", { count: data.recoveryCodesLeft })}
                </Typography.Text>
              )}
            </Flex>
          )}
        </div>
        <div className="kw-setting-action">
          {data && !data.enabled && (
            <Button type="primary" onClick={() => setModal("setup")} data-testid="twofactor-on">
              {t("twoFactor.turnOn")}
            </Button>
          )}
          {data?.enabled && (
            <Space wrap>
              <Button
                icon={<KeyOutlined />}
                onClick={() => setModal("codes")}
                data-testid="twofactor-new-codes"
              >
                {t("twoFactor.newCodes")}
              </Button>
              <Button danger onClick={() => setModal("disable")} data-testid="twofactor-off">
                {t("twoFactor.turnOff")}
              </Button>
            </Space>
          )}
        </div>
      </div>
      <SetupTwoFactorModal open={modal === "setup"} onClose={() => setModal(null)} />
      <DisableTwoFactorModal open={modal === "disable"} onClose={() => setModal(null)} />
      <NewRecoveryCodesModal open={modal === "codes"} onClose={() => setModal(null)} />
    </Card>
  );
}
