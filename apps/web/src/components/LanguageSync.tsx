import { parseLang } from "@keyway/shared";
import { useEffect } from "react";
import { useLocation } from "react-router";
import { LANGUAGE_PARAM, setLang } from "../i18n/index.ts";

/** SPEC §2: every route takes ?language=cn|en; it sets (and persists) the language. */
export function LanguageSync() {
  const { search } = useLocation();
  useEffect(() => {
    const lang = parseLang(new URLSearchParams(search).get(LANGUAGE_PARAM));
    if (lang) setLang(lang);
  }, [search]);
  return null;
}
