import { Layout, Spin } from "antd";
import { Suspense } from "react";
import { Navigate, Outlet } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { hasToken } from "../../lib/session.ts";
import { PATHS } from "../../paths.ts";
import { AppHeader } from "./AppHeader.tsx";
import { SideNav } from "./SideNav.tsx";
import { usePushChannel } from "./usePushChannel.tsx";

/**
 * Main layout: header, side navigation, page. Without the token cookie → /login (SPEC §2).
 * While signed in the push channel runs (connected after login, closed on logout).
 */
export function MainLayout({ pages }: { pages: ReadonlySet<string> }) {
  const authed = hasToken();
  const userInfo = useUserInfo();
  if (!authed) return <Navigate to={PATHS.login} replace />;
  return <SignedInLayout user={userInfo.data} pages={pages} />;
}

/** The layout of a signed-in user, with the push channel running. */
function SignedInLayout({
  user,
  pages,
}: {
  user: ReturnType<typeof useUserInfo>["data"];
  pages: ReadonlySet<string>;
}) {
  usePushChannel();
  return (
    <Layout className="kw-main">
      <AppHeader user={user} />
      <Layout>
        <Layout.Sider
          width={224}
          theme="light"
          breakpoint="lg"
          collapsedWidth={0}
          className="kw-sider"
        >
          <SideNav pages={pages} />
        </Layout.Sider>
        <Layout.Content className="kw-content">
          <Suspense fallback={<Spin className="kw-page-spin" />}>
            <Outlet />
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
