import { createBrowserRouter, Navigate, Outlet, type RouteObject, useLocation } from "react-router";
import { TitleSync } from "./brand/TitleSync.tsx";
import { LanguageSync } from "./components/LanguageSync.tsx";
import { LANGUAGE_PARAM } from "./i18n/index.ts";
import { registerNavigate } from "./lib/navigation.ts";
import {
  DeleteAccountPage,
  ModifyEmailPage,
  ModifyPhonePage,
} from "./pages/account/AccountChangePage.tsx";
import { MainEntryPage } from "./pages/account/MainEntryPage.tsx";
import { RecoverPwdPage } from "./pages/account/RecoverPwdPage.tsx";
import { UserInfoPage } from "./pages/account/UserInfoPage.tsx";
import { AdministrateCenterPage } from "./pages/administrateCenter/AdministrateCenterPage.tsx";
import { AlarmCenterPage } from "./pages/alarmCenter/AlarmCenterPage.tsx";
import { AppDownloadPage } from "./pages/appDownload/AppDownloadPage.tsx";
import { BackManagePage } from "./pages/backManage/BackManagePage.tsx";
import { CloudMapPage, MapCanvasPage } from "./pages/cloudMap/CloudMapPage.tsx";
import { DataCenterPage } from "./pages/dataCenter/DataCenterPage.tsx";
import { DeviceListPage } from "./pages/devices/DeviceListPage.tsx";
import { EnterpriseDevicePage } from "./pages/enterpriseDevices/EnterpriseDevicePage.tsx";
import { EzvizPage } from "./pages/ezviz/EzvizPage.tsx";
import { ForgetPwdPage } from "./pages/forgetPwd/ForgetPwdPage.tsx";
import { IotCardDetailPage } from "./pages/iotCards/IotCardDetailPage.tsx";
import { IotCardsPage } from "./pages/iotCards/IotCardsPage.tsx";
import { MainLayout } from "./pages/layout/MainLayout.tsx";
import { LoginPage } from "./pages/login/LoginPage.tsx";
import { LoginTimeoutPage } from "./pages/loginTimeout/LoginTimeoutPage.tsx";
import { MobileRedirect } from "./pages/mobile/MobileRedirect.tsx";
import { mobileRoute, qrConfirmRoute } from "./pages/mobile/mobileRoutes.tsx";
import { MsgCenterPage } from "./pages/msgCenter/MsgCenterPage.tsx";
import { ProjectsPage } from "./pages/projects/ProjectsPage.tsx";
import { RegisterPage } from "./pages/register/RegisterPage.tsx";
import { SafetyPage } from "./pages/safety/SafetyPage.tsx";
import { ScadaRegisterPage } from "./pages/scadaRegister/ScadaRegisterPage.tsx";
import { LANDING_ROUTE, PATHS } from "./paths.ts";

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

function RootShell() {
  return (
    <>
      <LanguageSync />
      <TitleSync />
      <MobileRedirect>
        <Outlet />
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
      { path: PATHS.login, element: <LoginPage /> },
      { path: PATHS.register, element: <RegisterPage key="phone" by="phone" /> },
      { path: PATHS.registerByEmail, element: <RegisterPage key="email" by="email" /> },
      { path: PATHS.forgetPwd, element: <ForgetPwdPage /> },
      { path: PATHS.loginTimeout, element: <LoginTimeoutPage /> },
      { path: PATHS.backManage, element: <BackManagePage /> },
      { path: PATHS.administrateCenter, element: <AdministrateCenterPage /> },
      { path: PATHS.mapCanvas, element: <MapCanvasPage /> },
      { path: PATHS.scadaRegister, element: <ScadaRegisterPage /> },
      { path: PATHS.appDownload, element: <AppDownloadPage /> },
      { path: PATHS.main, element: <MainEntryPage /> },
      { path: PATHS.userInfo, element: <UserInfoPage /> },
      { path: PATHS.modifyEmail, element: <ModifyEmailPage /> },
      { path: PATHS.modifyPhone, element: <ModifyPhonePage /> },
      { path: PATHS.deleteAccount, element: <DeleteAccountPage /> },
      // The phone's QR-login confirmation: beside the mobile shell, it handles a missing login itself.
      qrConfirmRoute,
      mobileRoute,
      { element: <MainLayout pages={mainPagePaths} />, children: mainPages },
      { path: "/", element: <Navigate to={LANDING_ROUTE} replace /> },
      { path: "*", element: <ToLogin /> },
    ],
  },
]);

registerNavigate((to, options) => {
  void router.navigate(to, options);
});
