import { isValidElement, type ReactNode, Suspense } from "react";
import { createBrowserRouter, Navigate, Outlet, type RouteObject, useLocation } from "react-router";
import { TitleSync } from "./brand/TitleSync.tsx";
import { AuthShellLoading } from "./components/AuthFrame.tsx";
import { LanguageSync } from "./components/LanguageSync.tsx";
import { lazyPage, PageLoading } from "./components/lazyPage.tsx";
import { LANGUAGE_PARAM } from "./i18n/index.ts";
import { registerNavigate } from "./lib/navigation.ts";
import { MobileRedirect } from "./pages/mobile/MobileRedirect.tsx";
import { mobileRoute, qrConfirmRoute } from "./pages/mobile/mobileRoutes.tsx";
import { LANDING_ROUTE, PATHS } from "./paths.ts";
import { type ShellPath, shellChunks } from "./shellPages.ts";

// Every page in a chunk of its own, fetched when its route is first shown (issue 17): the
// login page loads without the maps, charts and tables of the signed-in pages.
const DeleteAccountPage = lazyPage(shellChunks.account, "DeleteAccountPage");
const ModifyEmailPage = lazyPage(shellChunks.account, "ModifyEmailPage");
const ModifyPhonePage = lazyPage(shellChunks.account, "ModifyPhonePage");
const MainEntryPage = lazyPage(() => import("./pages/account/MainEntryPage.tsx"), "MainEntryPage");
const RecoverPwdPage = lazyPage(
  () => import("./pages/account/RecoverPwdPage.tsx"),
  "RecoverPwdPage",
);
const UserInfoPage = lazyPage(shellChunks.userInfo, "UserInfoPage");
const AdministrateCenterPage = lazyPage(shellChunks.administrateCenter, "AdministrateCenterPage");
const AlarmCenterPage = lazyPage(
  () => import("./pages/alarmCenter/AlarmCenterPage.tsx"),
  "AlarmCenterPage",
);
const AppDownloadPage = lazyPage(
  () => import("./pages/appDownload/AppDownloadPage.tsx"),
  "AppDownloadPage",
);
const BackManagePage = lazyPage(shellChunks.backManage, "BackManagePage");
const cloudMap = () => import("./pages/cloudMap/CloudMapPage.tsx");
const CloudMapPage = lazyPage(cloudMap, "CloudMapPage");
const MapCanvasPage = lazyPage(cloudMap, "MapCanvasPage");
const DataCenterPage = lazyPage(
  () => import("./pages/dataCenter/DataCenterPage.tsx"),
  "DataCenterPage",
);
const DeviceListPage = lazyPage(
  () => import("./pages/devices/DeviceListPage.tsx"),
  "DeviceListPage",
);
const EnterpriseDevicePage = lazyPage(
  () => import("./pages/enterpriseDevices/EnterpriseDevicePage.tsx"),
  "EnterpriseDevicePage",
);
const EzvizPage = lazyPage(() => import("./pages/ezviz/EzvizPage.tsx"), "EzvizPage");
const ForgetPwdPage = lazyPage(shellChunks.forgetPwd, "ForgetPwdPage");
const IotCardDetailPage = lazyPage(
  () => import("./pages/iotCards/IotCardDetailPage.tsx"),
  "IotCardDetailPage",
);
const IotCardsPage = lazyPage(() => import("./pages/iotCards/IotCardsPage.tsx"), "IotCardsPage");
const MainLayout = lazyPage(() => import("./pages/layout/MainLayout.tsx"), "MainLayout");
const LoginPage = lazyPage(shellChunks.login, "LoginPage");
const LoginTimeoutPage = lazyPage(shellChunks.loginTimeout, "LoginTimeoutPage");
const MsgCenterPage = lazyPage(
  () => import("./pages/msgCenter/MsgCenterPage.tsx"),
  "MsgCenterPage",
);
const ProjectsPage = lazyPage(() => import("./pages/projects/ProjectsPage.tsx"), "ProjectsPage");
const RegisterPage = lazyPage(shellChunks.register, "RegisterPage");
const SafetyPage = lazyPage(() => import("./pages/safety/SafetyPage.tsx"), "SafetyPage");
const ScadaRegisterPage = lazyPage(shellChunks.scadaRegister, "ScadaRegisterPage");
// The screen viewer with noVNC: fetched only when a device's screen is opened.
const ScreenPage = lazyPage(() => import("./pages/screen/ScreenPage.tsx"), "ScreenPage");

/**
 * Pages under the main layout. The side navigation shows an entry only when its path is here
 * ("an entry appears when its page exists").
 */
const mainPages: RouteObject[] = [
  { path: PATHS.index, element: <DeviceListPage /> },
  { path: PATHS.device, element: <EnterpriseDevicePage /> },
  { path: PATHS.safety, element: <SafetyPage /> },
  { path: PATHS.ezviz, element: <EzvizPage /> },
  { path: PATHS.msgCenter, element: <MsgCenterPage /> },
  { path: PATHS.dataCenter, element: <DataCenterPage /> },
  { path: PATHS.alarmCenter, element: <AlarmCenterPage /> },
  { path: PATHS.project, element: <ProjectsPage /> },
  { path: PATHS.iotCard, element: <IotCardsPage /> },
  { path: `${PATHS.iotCard}/:iccid`, element: <IotCardDetailPage /> },
  { path: PATHS.cloudMap, element: <CloudMapPage /> },
  { path: PATHS.recoverPwd, element: <RecoverPwdPage /> },
];
const mainPagePaths: ReadonlySet<string> = new Set(mainPages.map((r) => r.path ?? ""));

/** A login-shell page: its brand side shows at once, while the page's chunk loads. */
const shell = (page: ReactNode) => <Suspense fallback={<AuthShellLoading />}>{page}</Suspense>;

/** The pages in the login shell (brand panel and card): every path of SHELL_PAGES. */
const shellElements: Record<ShellPath, ReactNode> = {
  [PATHS.login]: <LoginPage />,
  [PATHS.register]: <RegisterPage key="phone" by="phone" />,
  [PATHS.registerByEmail]: <RegisterPage key="email" by="email" />,
  [PATHS.forgetPwd]: <ForgetPwdPage />,
  [PATHS.loginTimeout]: <LoginTimeoutPage />,
  [PATHS.backManage]: <BackManagePage />,
  [PATHS.administrateCenter]: <AdministrateCenterPage />,
  [PATHS.scadaRegister]: <ScadaRegisterPage />,
  [PATHS.userInfo]: <UserInfoPage />,
  [PATHS.modifyEmail]: <ModifyEmailPage />,
  [PATHS.modifyPhone]: <ModifyPhonePage />,
  [PATHS.deleteAccount]: <DeleteAccountPage />,
};
const shellPages: RouteObject[] = Object.entries(shellElements).map(([path, page]) => ({
  path,
  element: shell(page),
}));

function RootShell() {
  return (
    <>
      <LanguageSync />
      <TitleSync />
      <MobileRedirect>
        {/* The main layout keeps its header and navigation while its pages load (its own
            Suspense); the other pages show this until their chunk is there. */}
        <Suspense fallback={<PageLoading />}>
          <Outlet />
        </Suspense>
      </MobileRedirect>
    </>
  );
}

/** Unknown paths go to /login (SPEC §2), keeping an explicit ?language=. */
function ToLogin() {
  const { search } = useLocation();
  const language = new URLSearchParams(search).get(LANGUAGE_PARAM);
  const query = language ? `?${LANGUAGE_PARAM}=${encodeURIComponent(language)}` : "";
  return <Navigate to={`${PATHS.login}${query}`} replace />;
}

export const router = createBrowserRouter([
  {
    element: <RootShell />,
    children: [
      ...shellPages,
      { path: PATHS.mapCanvas, element: <MapCanvasPage /> },
      { path: PATHS.appDownload, element: <AppDownloadPage /> },
      { path: PATHS.main, element: <MainEntryPage /> },
      // A device's screen, full window (no layout), on every kind of device.
      { path: `${PATHS.screen}/:id`, element: <ScreenPage /> },
      // The phone's QR-login confirmation: beside the mobile shell, it handles a missing login itself.
      qrConfirmRoute,
      mobileRoute,
      { element: <MainLayout pages={mainPagePaths} />, children: mainPages },
      { path: "/", element: <Navigate to={LANDING_ROUTE} replace /> },
      { path: "*", element: <ToLogin /> },
    ],
  },
]);

/** The lazy page components in a route element (a page, or a page in `shell()`). */
function lazyPagesIn(node: ReactNode): { preload: () => Promise<unknown> }[] {
  if (!isValidElement(node)) return [];
  const type = node.type as { preload?: () => Promise<unknown> };
  const inner = lazyPagesIn((node.props as { children?: ReactNode }).children);
  return type.preload ? [type as { preload: () => Promise<unknown> }, ...inner] : inner;
}

/**
 * Fetches the chunks of the page at the current address (and its layout's); resolves when
 * they are there, or failed (the route's own loading then tells). main.tsx renders the app
 * after this, so that the first render is one pass without a loading state in between.
 */
export async function preloadCurrentPage(): Promise<void> {
  const pages = router.state.matches.flatMap((match) => lazyPagesIn(match.route.element));
  await Promise.allSettled(pages.map((page) => page.preload()));
}

registerNavigate((to, options) => {
  void router.navigate(to, options);
});
