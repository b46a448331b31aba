import { MailOutlined, MobileOutlined } from "@ant-design/icons";
import { Button, Divider } from "antd";
import { useNavigate } from "react-router";
import { useLang } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";

/** Below the login form: register by phone or by e-mail. */
export function RegisterChoices() {
  const { t } = useLang();
  const navigate = useNavigate();
  return (
    <>
      <Divider plain className="kw-auth-divider">
        {t("login.noAccount")}
      </Divider>
      <div className="kw-register-choices">
        <Button
          block
          icon={<MobileOutlined />}
          onClick={() => navigate(PATHS.register)}
          data-testid="login-register-phone"
        >
          {t("login.registerPhone")}
        </Button>
        <Button
          block
          icon={<MailOutlined />}
          onClick={() => navigate(PATHS.registerByEmail)}
          data-testid="login-register-email"
        >
          {t("login.registerEmail")}
        </Button>
      </div>
    </>
  );
}
