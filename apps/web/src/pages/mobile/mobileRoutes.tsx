import type { ComponentType } from "react";
import { Outlet, type RouteObject } from "react-router";
import { MOBILE } from "../../paths.ts";

/** A route whose screen (and antd-mobile with it) is fetched only when a phone opens it. */
const screen = (load: () => Promise<ComponentType>): Pick<RouteObject, "lazy"> => ({
  lazy: async () => ({ Component: await load() }),
});

/**
 * The mobile route (SPEC §2 /mobile): the login, and the signed-in screens under the tab bar.
 * Loaded on demand, so desktop browsers never download the phone UI. Other /mobile/... routes
 * (e.g. the QR-login confirmation) sit beside these in routes.tsx.
 */
export const mobileRoute: RouteObject = {
  path: MOBILE.root,
  ...screen(async () => {
    const { MobileProviders } = await import("./MobileShell.tsx");
    return () => (
      <MobileProviders>
        <Outlet />
      </MobileProviders>
    );
  }),
  children: [
    {
      path: MOBILE.login,
      ...screen(async () => (await import("./MobileLoginPage.tsx")).MobileLoginPage),
    },
    {
      ...screen(async () => (await import("./MobileShell.tsx")).MobileShell),
      children: [
        {
          index: true,
          ...screen(async () => (await import("./MobileDevicesPage.tsx")).MobileDevicesPage),
        },
        {
          path: `${MOBILE.device}/:id`,
          ...screen(async () => (await import("./MobileDevicePage.tsx")).MobileDevicePage),
        },
        {
          path: MOBILE.messages,
          ...screen(async () => (await import("./MobileMessagesPage.tsx")).MobileMessagesPage),
        },
        {
          path: MOBILE.alarms,
          ...screen(async () => (await import("./MobileAlarmsPage.tsx")).MobileAlarmsPage),
        },
        {
          path: `${MOBILE.iotCard}/:iccid`,
          ...screen(async () => (await import("./MobileIotCardPage.tsx")).MobileIotCardPage),
        },
        {
          path: MOBILE.me,
          ...screen(async () => (await import("./MobileMePage.tsx")).MobileMePage),
        },
      ],
    },
  ],
};

/** The phone's QR-login confirmation, also on demand. */
export const qrConfirmRoute: RouteObject = {
  path: MOBILE.qrLogin,
  ...screen(async () => (await import("./qrLogin/QrConfirmPage.tsx")).QrConfirmPage),
};
