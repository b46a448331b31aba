import "./i18n/index.ts";
import "./styles.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import { applyBrandIcon, brand } from "./brand/brand.ts";

applyBrandIcon();
document.documentElement.style.setProperty("--kw-primary", brand.color);

const root = document.getElementById("root");
if (!root) throw new Error("#root is missing");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
