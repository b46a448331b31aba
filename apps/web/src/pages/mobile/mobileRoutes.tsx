import { Outlet, type RouteObject } from "react-router";
import { MOBILE } from "../../paths.ts";
import { MobileAlarmsPage } from "./MobileAlarmsPage.tsx";
import { MobileDevicePage } from "./MobileDevicePage.tsx";
import { MobileDevicesPage } from "./MobileDevicesPage.tsx";
import { MobileLoginPage } from "./MobileLoginPage.tsx";
import { MobileMePage } from "./MobileMePage.tsx";
import { MobileMessagesPage } from "./MobileMessagesPage.tsx";
import { MobileProviders, MobileShell } from "./MobileShell.tsx";

/**
 * The mobile route (SPEC §2 /mobile): the login, and the signed-in screens under the tab bar.
 * Other /mobile/... routes (e.g. the QR-login confirmation) sit beside these in routes.tsx.
 */
export const mobileRoute: RouteObject = {
  path: MOBILE.root,
  element: (
    <MobileProviders>
      <Outlet />
    </MobileProviders>
  ),
  children: [
    { path: MOBILE.login, element: <MobileLoginPage /> },
    {
      element: <MobileShell />,
      children: [
        { index: true, element: <MobileDevicesPage /> },
        { path: `${MOBILE.device}/:id`, element: <MobileDevicePage /> },
        { path: MOBILE.messages, element: <MobileMessagesPage /> },
        { path: MOBILE.alarms, element: <MobileAlarmsPage /> },
        { path: MOBILE.me, element: <MobileMePage /> },
      ],
    },
  ],
};
