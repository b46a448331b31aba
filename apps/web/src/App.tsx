import { QueryClientProvider } from "@tanstack/react-query";
import { App as AntApp, ConfigProvider } from "antd";
import enUS from "antd/locale/en_US";
import zhCN from "antd/locale/zh_CN";
import { RouterProvider } from "react-router/dom";
import { queryClient } from "./api/queryClient.ts";
import { brand, tint } from "./brand/brand.ts";
import { FeedbackBridge } from "./components/FeedbackBridge.tsx";
import { useLang } from "./i18n/index.ts";
import { router } from "./routes.tsx";

/** Providers: antd locale + brand theme, feedback bridge, react-query, router. */
export function App() {
  const { lang } = useLang();
  return (
    <ConfigProvider
      locale={lang === "en" ? enUS : zhCN}
      theme={{
        token: { colorPrimary: brand.color, colorLink: brand.color, borderRadius: 8 },
        components: {
          Layout: { headerBg: "#fff", siderBg: "#fff", bodyBg: "#f5f7fa" },
          Menu: { itemSelectedBg: tint(brand.color, 0.12), itemSelectedColor: brand.color },
        },
      }}
    >
      <AntApp>
        <FeedbackBridge />
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </AntApp>
    </ConfigProvider>
  );
}
