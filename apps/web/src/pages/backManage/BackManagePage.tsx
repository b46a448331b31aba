import { Button, Layout, Result, Spin, Typography } from "antd";
import { useNavigate } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";
import { AppHeader } from "../layout/AppHeader.tsx";
import { OutboxTable } from "./OutboxTable.tsx";

/** /backManage: operator back office (today: the notification outbox). */
export function BackManagePage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const authed = hasToken();
  const userInfo = useUserInfo();

  if (!authed) {
    return (
      <AuthShell>
        <Result
          status="403"
          title={t("backManage.noAccess")}
          subTitle={t("backManage.noAccessHint")}
          extra={
            <Button
              type="primary"
              onClick={() => navigate(PATHS.login)}
              data-testid="backmanage-login"
            >
              {t("backManage.toLogin")}
            </Button>
          }
        />
      </AuthShell>
    );
  }

  const user = userInfo.data;
  let body: React.ReactNode;
  if (userInfo.isPending) {
    body = <Spin size="large" className="kw-page-spin" />;
  } else if (user?.role !== "operator") {
    body = (
      <Result
        status="403"
        title={<span data-testid="backmanage-denied">{t("backManage.noAccess")}</span>}
        subTitle={t("backManage.noAccessHint")}
        extra={
          <Button type="primary" onClick={() => navigate(LANDING_ROUTE)}>
            {t("backManage.toHome")}
          </Button>
        }
      />
    );
  } else {
    body = (
      <div className="kw-page">
        <Typography.Title level={4} className="kw-page-title">
          {t("backManage.title")}
        </Typography.Title>
        <OutboxTable />
      </div>
    );
  }

  return (
    <Layout className="kw-main">
      <AppHeader user={user} />
      <Layout.Content className="kw-content">{body}</Layout.Content>
    </Layout>
  );
}
