import react from "@vitejs/plugin-react";
import { defineConfig, type ProxyOptions } from "vite";

/** The API server (apps/server) in development; the built app is served by it directly. */
const API_TARGET = process.env.KEYWAY_API ?? "http://localhost:8080";

// Keep the browser's Host header (changeOrigin false): the server picks the brand from it.
const proxy: Record<string, ProxyOptions> = {
  "/api": { target: API_TARGET },
  "/eapi": { target: API_TARGET },
  "/apiDoc": { target: API_TARGET },
  // Machine type icons (GET /internal/v1/icons points at /icons/<id>.svg).
  "/icons": { target: API_TARGET },
  "/ws": { target: API_TARGET, ws: true },
};

/** Packages only antd-mobile (the phone UI) brings. */
const MOBILE_ONLY = [
  "antd-mobile",
  "@react-spring",
  "@use-gesture",
  "@floating-ui",
  "ahooks",
  "staged-components",
  "runes2",
  "nano-memoize",
].join("|");

export default defineConfig({
  base: "/",
  plugins: [react()],
  server: { port: 5173, allowedHosts: true, proxy },
  preview: { port: 4173, allowedHosts: true, proxy },
  build: {
    outDir: "dist",
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      output: {
        // Long-lived vendor chunks: the UI kit changes far less often than the app.
        codeSplitting: {
          groups: [
            {
              name: "antd",
              test: /node_modules[\\/](antd|@ant-design|@rc-component|rc-[\w-]+)[\\/]/,
            },
            // Everything else the desktop app needs; the phone UI's own packages are left out.
            { name: "vendor", test: new RegExp(`node_modules[\\\\/](?!${MOBILE_ONLY})`) },
            // The phone UI's kit, after vendor so that shared packages stay there: only the
            // lazily loaded mobile screens import it.
            { name: "antd-mobile", test: new RegExp(`node_modules[\\\\/](${MOBILE_ONLY})[\\\\/]`) },
          ],
        },
      },
    },
  },
});
