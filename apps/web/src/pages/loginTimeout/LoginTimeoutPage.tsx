import { ClockCircleOutlined } from "@ant-design/icons";
import { Button, Result } from "antd";
import { useNavigate } from "react-router";
import { AuthShell } from "../../components/AuthShell.tsx";
import { useLang } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";

/** /loginTimeout: shown after the token was refused (hwcode 113 / HTTP 401). */
export function LoginTimeoutPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  return (
    <AuthShell>
      <Result
        icon={<ClockCircleOutlined className="kw-timeout-icon" />}
        title={t("timeout.title")}
        subTitle={t("timeout.hint")}
        extra={
          <Button
            type="primary"
            size="large"
            data-testid="relogin"
            onClick={() => navigate(PATHS.login, { replace: true })}
          >
            {t("timeout.relogin")}
          </Button>
        }
      />
    </AuthShell>
  );
}
