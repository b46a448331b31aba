import { AppstoreOutlined, BellOutlined, MessageOutlined, UserOutlined } from "@ant-design/icons";
import {
  Badge,
  ConfigProvider,
  DotLoading,
  SafeArea,
  TabBar,
  unstableSetRender,
} from "antd-mobile";
import enUS from "antd-mobile/es/locales/en-US";
import zhCN from "antd-mobile/es/locales/zh-CN";
import { type CSSProperties, type ReactNode, Suspense } from "react";
import { createRoot } from "react-dom/client";
import { Navigate, Outlet, useLocation, useNavigate } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { brand } from "../../brand/brand.ts";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { MOBILE } from "../../paths.ts";
import { useAppStore } from "../../store/app.ts";
import { useMobilePush } from "./useMobilePush.tsx";
import "./mobile.css";

// antd-mobile 5 renders its imperative Dialog / Toast with ReactDOM.render, which React 19
// removed; its documented React 19 hook hands it createRoot instead.
unstableSetRender((node, container) => {
  const root = createRoot(container);
  root.render(node);
  return async () => root.unmount();
});

/** antd-mobile's locale and the brand colour for every mobile screen (login included). */
export function MobileProviders({ children }: { children: ReactNode }) {
  const { lang } = useLang();
  const style = { "--adm-color-primary": brand.color } as CSSProperties;
  return (
    <ConfigProvider locale={lang === "en" ? enUS : zhCN}>
      <div className="kwm" style={style} data-testid="m-app">
        {children}
      </div>
    </ConfigProvider>
  );
}

/** `/mobile/login?redirect=...`: where to come back to after logging in (mobile paths only). */
export function loginPathFor(location: { pathname: string; search: string }): string {
  const back = `${location.pathname}${location.search}`;
  return back === MOBILE.root
    ? MOBILE.login
    : `${MOBILE.login}?redirect=${encodeURIComponent(back)}`;
}

/**
 * The signed-in phone: the screen, and the tab bar (devices, messages with the unread badge,
 * alarms, me). Without the token cookie → the mobile login, which comes back here after.
 */
export function MobileShell() {
  const location = useLocation();
  if (!hasToken()) return <Navigate to={loginPathFor(location)} replace />;
  return <SignedInShell />;
}

const TABS = [
  { key: MOBILE.root, icon: <AppstoreOutlined />, text: "m.tabs.devices" },
  { key: MOBILE.messages, icon: <MessageOutlined />, text: "m.tabs.messages" },
  { key: MOBILE.alarms, icon: <BellOutlined />, text: "m.tabs.alarms" },
  { key: MOBILE.me, icon: <UserOutlined />, text: "m.tabs.me" },
] as const;

function activeTab(pathname: string): string {
  if (pathname.startsWith(MOBILE.device)) return MOBILE.root;
  return TABS.find((tab) => tab.key === pathname)?.key ?? MOBILE.root;
}

function SignedInShell() {
  const { t } = useLang();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const unread = useAppStore((s) => s.messageCenter.totalUnreadMsg);
  useUserInfo();
  useMobilePush();
  return (
    <div className="kwm-shell">
      <main className="kwm-body">
        <Suspense fallback={<DotLoading color="primary" />}>
          <Outlet />
        </Suspense>
      </main>
      <nav className="kwm-tabbar" data-testid="m-tabbar">
        <TabBar activeKey={activeTab(pathname)} onChange={(key) => navigate(key)}>
          {TABS.map((tab) => (
            <TabBar.Item
              key={tab.key}
              title={<span data-testid={`m-tab-${tab.text.split(".")[2]}`}>{t(tab.text)}</span>}
              icon={
                tab.key === MOBILE.messages ? (
                  <span data-testid="m-unread" data-count={unread}>
                    <Badge content={unread > 0 ? (unread > 99 ? "99+" : String(unread)) : null}>
                      {tab.icon}
                    </Badge>
                  </span>
                ) : (
                  tab.icon
                )
              }
            />
          ))}
        </TabBar>
        <SafeArea position="bottom" />
      </nav>
    </div>
  );
}
