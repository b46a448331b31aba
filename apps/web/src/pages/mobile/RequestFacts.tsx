import type { ScanCodeResult } from "@keyway/shared";
import { NoticeBar } from "antd-mobile";
import { useLang } from "../../i18n/index.ts";

/** The looked-up device: its code, request mode, the caller's identity, and why it may not be asked for. */
export function RequestFacts({
  device,
  passwordMode,
}: {
  device: ScanCodeResult;
  passwordMode: boolean;
}) {
  const { t } = useLang();
  return (
    <>
      <div className="kwm-facts">
        <div>
          <span>{t("device.code")}</span>
          <b data-testid="m-request-device">{device.machine_code}</b>
        </div>
        <div>
          <span>{t("access.request.mode")}</span>
          <b>{passwordMode ? t("authority.modePassword") : t("authority.modeApproval")}</b>
        </div>
        {device.role !== "none" && (
          <div>
            <span>{t("device.identityLabel")}</span>
            <b>{t(`device.identity.${device.role}`)}</b>
          </div>
        )}
      </div>
      {device.blacklisted && (
        <NoticeBar
          color="error"
          wrap
          content={t("access.request.blacklisted")}
          data-testid="m-request-blacklisted"
        />
      )}
      {!device.has_akey && (
        <NoticeBar
          color="alert"
          wrap
          content={t("m.request.noOwner")}
          data-testid="m-request-no-owner"
        />
      )}
    </>
  );
}
