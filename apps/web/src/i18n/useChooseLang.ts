import type { Lang } from "@keyway/shared";
import { useLocation, useNavigate } from "react-router";
import { LANGUAGE_PARAM, setLang, useLang } from "./index.ts";

/** The current language and a chooser that keeps an explicit ?language= in step with it. */
export function useChooseLang(): { lang: Lang; choose: (next: Lang) => void } {
  const { lang } = useLang();
  const location = useLocation();
  const navigate = useNavigate();
  const choose = (next: Lang) => {
    setLang(next);
    const params = new URLSearchParams(location.search);
    if (params.has(LANGUAGE_PARAM) && params.get(LANGUAGE_PARAM) !== next) {
      params.set(LANGUAGE_PARAM, next);
      navigate({ pathname: location.pathname, search: `?${params}` }, { replace: true });
    }
  };
  return { lang, choose };
}
