import { Button, Card, Layout, Result, Spin, Tabs, Typography } from "antd";
import { useNavigate, useSearchParams } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";
import { AppHeader } from "../layout/AppHeader.tsx";
import { BrandsTab } from "./BrandsTab.tsx";
import { EnterprisesTab } from "./EnterprisesTab.tsx";
import { OutboxTable } from "./OutboxTable.tsx";
import { RegistryTab } from "./RegistryTab.tsx";

const TABS = ["devices", "enterprises", "brands", "outbox"] as const;
type Tab = (typeof TABS)[number];

/** /backManage: operator back office — device registry, enterprises, notification outbox. */
export function BackManagePage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const authed = hasToken();
  const userInfo = useUserInfo();
  const [params, setParams] = useSearchParams();
  const tab: Tab = (TABS as readonly string[]).includes(params.get("tab") ?? "")
    ? (params.get("tab") as Tab)
    : "devices";

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
      <div className="kw-page kw-page-wide">
        <Typography.Title level={4} className="kw-page-title">
          {t("backManage.title")}
        </Typography.Title>
        <Tabs
          destroyOnHidden
          activeKey={tab}
          onChange={(key) => {
            const next = new URLSearchParams(params);
            next.set("tab", key);
            setParams(next, { replace: true });
          }}
          items={[
            {
              key: "devices",
              label: <span data-testid="bo-tab-devices">{t("bo.tabDevices")}</span>,
              children: (
                <Card className="kw-card">
                  <RegistryTab />
                </Card>
              ),
            },
            {
              key: "enterprises",
              label: <span data-testid="bo-tab-enterprises">{t("bo.tabEnterprises")}</span>,
              children: (
                <Card className="kw-card">
                  <EnterprisesTab />
                </Card>
              ),
            },
            {
              key: "brands",
              label: <span data-testid="bo-tab-brands">{t("entCreate.brandsTab")}</span>,
              children: (
                <Card className="kw-card">
                  <BrandsTab />
                </Card>
              ),
            },
            {
              key: "outbox",
              label: <span data-testid="bo-tab-outbox">{t("bo.tabOutbox")}</span>,
              children: <OutboxTable />,
            },
          ]}
        />
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
