import { COOKIE_DEFAULT_DAYS, DEFAULT_LANG, type Lang, parseLang } from "@keyway/shared";
import dayjs from "dayjs";
import "dayjs/locale/en";
import "dayjs/locale/zh-cn";
import i18n from "i18next";
import { initReactI18next, useTranslation } from "react-i18next";
import { COOKIE, getCookie, setCookie } from "../lib/cookies.ts";
import { STORAGE_KEY, safeStorage } from "../lib/storage.ts";
import en from "./en.ts";
import zh from "./zh.ts";

export const LANGUAGE_PARAM = "language";

export const resources = {
  en: { translation: en },
  cn: { translation: zh },
} as const;

/** Query parameter `language` > stored choice > `lang` cookie > browser > default (cn). */
export function initialLang(): Lang {
  const fromQuery = parseLang(new URLSearchParams(window.location.search).get(LANGUAGE_PARAM));
  return (
    fromQuery ??
    parseLang(safeStorage.get(STORAGE_KEY.lang)) ??
    parseLang(getCookie(COOKIE.lang)) ??
    parseLang(navigator.language) ??
    DEFAULT_LANG
  );
}

function applySideEffects(lang: Lang) {
  safeStorage.set(STORAGE_KEY.lang, lang);
  // The server localizes `msg` from this cookie.
  setCookie(COOKIE.lang, lang, COOKIE_DEFAULT_DAYS);
  dayjs.locale(lang === "en" ? "en" : "zh-cn");
  document.documentElement.lang = lang === "en" ? "en" : "zh-CN";
}

const startLang = initialLang();
applySideEffects(startLang);

void i18n.use(initReactI18next).init({
  resources,
  lng: startLang,
  fallbackLng: "en",
  interpolation: { escapeValue: false },
  returnNull: false,
});

export function currentLang(): Lang {
  return parseLang(i18n.language) ?? DEFAULT_LANG;
}

export function setLang(lang: Lang): void {
  applySideEffects(lang);
  if (i18n.language !== lang) void i18n.changeLanguage(lang);
}

/** Every text's key, as a dot path through en.ts ("nav.deviceList"). */
type Leaves<T, P extends string = ""> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${K}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];
export type TextKey = Leaves<typeof en>;
/** `t` with its keys checked: a key missing from en.ts fails the typecheck. */
export type Translate = (key: TextKey, options?: object) => string;

/** The current wire language and `t`, re-rendering on change. */
export function useLang(): { lang: Lang; t: Translate } {
  const { t, i18n: instance } = useTranslation();
  return {
    lang: parseLang(instance.language) ?? DEFAULT_LANG,
    t: t as unknown as Translate,
  };
}

export default i18n;
