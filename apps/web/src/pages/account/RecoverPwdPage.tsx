import { Button, Card, Result, Typography } from "antd";
import { useState } from "react";
import { useNavigate } from "react-router";
import { useLang } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";
import { usePasswordForm } from "./usePasswordForm.tsx";

/** /recoverPwd (main layout): change the password with the current one, as a page. */
export function RecoverPwdPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const [done, setDone] = useState(false);
  const f = usePasswordForm({ onDone: () => setDone(true) });
  return (
    <div className="kw-page" data-testid="recover-pwd-page">
      <Typography.Title level={4} className="kw-page-title">
        {t("safety.changePassword")}
      </Typography.Title>
      <Card className="kw-card" style={{ maxWidth: 560 }}>
        {done ? (
          <Result
            status="success"
            title={t("safety.passwordChanged")}
            subTitle={t("account.passwordChangedHint")}
            data-testid="change-password-done"
            extra={
              <Button type="primary" onClick={() => navigate(PATHS.safety)}>
                {t("layout.securityCenter")}
              </Button>
            }
          />
        ) : (
          <>
            <Typography.Paragraph type="secondary">
              {t("account.recoverPwdHint")}
            </Typography.Paragraph>
            {f.element}
            <Button
              type="primary"
              loading={f.submitting}
              onClick={() => f.form.submit()}
              data-testid="change-password-submit"
            >
              {t("common.save")}
            </Button>
          </>
        )}
      </Card>
    </div>
  );
}
