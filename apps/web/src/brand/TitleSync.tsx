import { TITLE_SET_DELAY_MS } from "@keyway/shared";
import { useEffect } from "react";
import { useLocation } from "react-router";
import { useBrand } from "./brand.ts";

/** SPEC §2: every page title is the brand name, set one second after navigation. */
export function TitleSync() {
  const { pathname } = useLocation();
  const { wording } = useBrand();
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-run on every navigation
  useEffect(() => {
    const timer = window.setTimeout(() => {
      document.title = wording.name;
    }, TITLE_SET_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [pathname, wording.name]);
  return null;
}
