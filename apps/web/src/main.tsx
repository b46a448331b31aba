import "./i18n/index.ts";
import "./styles.css";
import { StrictMode, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { applyBrandIcon, brand } from "./brand/brand.ts";
import { AuthShellLoading } from "./components/AuthFrame.tsx";
import { currentDeviceKind } from "./lib/deviceKind.ts";
import { shellPageAt } from "./shellPages.ts";

applyBrandIcon();
document.documentElement.style.setProperty("--kw-primary", brand.color);

// A chunk that is gone (a new version was deployed while this page was open): load the new
// version once instead of failing the navigation.
window.addEventListener("vite:preloadError", (event) => {
  const key = "kw-reloaded-for";
  if (sessionStorage.getItem(key) === window.location.href) return;
  sessionStorage.setItem(key, window.location.href);
  event.preventDefault();
  window.location.reload();
});

const element = document.getElementById("root");
if (!element) throw new Error("#root is missing");
const root = createRoot(element);

/**
 * First paint before the app (issue 17): this entry holds React and the login shell's brand
 * side only. The app (router, antd, whose theme takes a while to set up on a slow CPU) and the
 * page's own chunk download meanwhile, and replace it once it has been painted.
 */
let painted: () => void = () => {};
const firstPaint = new Promise<void>((resolve) => {
  painted = resolve;
});

function Boot({ shell }: { shell: boolean }) {
  useEffect(() => {
    // After the frame that shows it.
    requestAnimationFrame(() => setTimeout(painted));
  }, []);
  return shell ? (
    <AuthShellLoading />
  ) : (
    <div className="kw-boot">
      <span className="kw-spinner" />
    </div>
  );
}

// A login-shell page: its brand side now, its chunk fetched beside the app's. Phones are sent
// to the mobile UI (MobileRedirect), so they get the plain spinner.
const shellPage =
  currentDeviceKind() === "mobile" ? undefined : shellPageAt(window.location.pathname);
const shellChunk = shellPage?.().catch(() => {});
root.render(<Boot shell={Boolean(shellPage)} />);

// The app once it is there with the page's chunks, in one render.
void Promise.all([import("./App.tsx"), import("./routes.tsx"), shellChunk]).then(
  async ([{ App }, { preloadCurrentPage }]) => {
    await Promise.all([preloadCurrentPage(), firstPaint]);
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  },
);
