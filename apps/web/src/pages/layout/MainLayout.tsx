import { Grid, Layout, Spin } from "antd";
import { Suspense, useEffect, useState } from "react";
import { Navigate, Outlet, useLocation } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { isTvMode } from "../../lib/deviceKind.ts";
import { hasToken } from "../../lib/session.ts";
import { PATHS } from "../../paths.ts";
import { TvWallPage } from "../tv/TvWallPage.tsx";
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
  const { pathname, search } = useLocation();
  // TV-box mode (SPEC §2): no navigation, and the device list is the device wall.
  const tv = isTvMode(search);
  // Below Ant Design's "lg" breakpoint the navigation folds away behind the header's menu
  // button and opens over the page; it folds again on every navigation.
  const narrow = Grid.useBreakpoint().lg === false;
  const [navOpen, setNavOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new location closes the menu.
  useEffect(() => setNavOpen(false), [pathname, search]);
  const toggleNav = narrow && !tv ? () => setNavOpen((open) => !open) : undefined;
  return (
    <Layout className={tv ? "kw-main kw-tv" : "kw-main"} data-tv={tv ? 1 : 0}>
      <AppHeader user={user} onToggleNav={toggleNav} navOpen={navOpen} />
      <Layout>
        {!tv && (
          <Layout.Sider
            width={224}
            theme="light"
            collapsed={narrow && !navOpen}
            collapsedWidth={0}
            trigger={null}
            className={narrow ? "kw-sider kw-sider-over" : "kw-sider"}
          >
            <SideNav pages={pages} />
          </Layout.Sider>
        )}
        {narrow && navOpen && (
          // A tap beside the open navigation folds it, as a drawer's mask does.
          <div className="kw-nav-mask" aria-hidden onClick={() => setNavOpen(false)} />
        )}
        <Layout.Content className="kw-content">
          <Suspense fallback={<Spin className="kw-page-spin" />}>
            {tv && pathname === PATHS.index ? <TvWallPage /> : <Outlet />}
          </Suspense>
        </Layout.Content>
      </Layout>
    </Layout>
  );
}
