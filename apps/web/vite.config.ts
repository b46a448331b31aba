import react from "@vitejs/plugin-react";
import { defineConfig, type ProxyOptions } from "vite";
import { novncTopLevelAwait } from "./novnc.ts";
import { precompress } from "./precompress.ts";
import { preloadChunks } from "./preloadChunks.ts";

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

export default defineConfig(({ command }) => {
  // The built app is React's production build even when the caller runs with another NODE_ENV
  // (vitest sets "test": a test that starts the platform may rebuild dist/).
  if (command === "build") process.env.NODE_ENV = "production";
  return {
    base: "/",
    plugins: [
      react(),
      // The screen viewer's noVNC, published with a top-level await no bundler takes.
      novncTopLevelAwait(),
      // The app's chunks (main.tsx imports it after the first paint) fetched with the entry's.
      preloadChunks(["src/App.tsx", "src/routes.tsx"]),
      // Brotli and gzip siblings of the output, sent as they are by the server
      // (apps/server/src/http/web.ts).
      precompress(),
    ],
    // The development server pre-bundles noVNC with rolldown too: the same fix there.
    optimizeDeps: { rolldownOptions: { plugins: [novncTopLevelAwait()] } },
    server: { port: 5173, allowedHosts: true, proxy },
    preview: { port: 4173, allowedHosts: true, proxy },
    build: {
      outDir: "dist",
      chunkSizeWarningLimit: 1500,
      rolldownOptions: {
        output: {
          // Pages are lazy (src/routes.tsx), the app itself too (src/main.tsx): the bundler gives
          // each page its own chunk and puts what several share (antd components...) in common
          // chunks, so the login page loads only what it uses (issue 17). Named groups only for
          // long-lived libraries, so that an app change leaves their cached chunk valid:
          codeSplitting: {
            groups: [
              // What the first paint needs (React, i18next): the entry's libraries.
              { name: "vendor", test: /node_modules[\\/]/, tags: ["$initial"], priority: 30 },
              // antd's icons beyond the first paint's: one small chunk rather than one per icon.
              {
                name: "icons",
                test: /node_modules[\\/]@ant-design[\\/]icons(-svg)?[\\/]/,
                priority: 20,
              },
              // The charts and the map, for the few pages that show them.
              { name: "echarts", test: /node_modules[\\/](echarts|zrender)[\\/]/, priority: 20 },
              { name: "leaflet", test: /node_modules[\\/]leaflet[\w.-]*[\\/]/, priority: 20 },
            ],
          },
        },
      },
    },
  };
});
