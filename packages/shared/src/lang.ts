/** Wire languages (SPEC: `language=cn|en`, `lang` cookie) and their locale. */
export type Lang = "cn" | "en";
export const LANGS: readonly Lang[] = ["cn", "en"];
export const DEFAULT_LANG: Lang = "cn";

export function parseLang(value: unknown): Lang | undefined {
  if (typeof value !== "string") return undefined;
  const v = value.toLowerCase();
  if (v === "cn" || v === "zh" || v === "zh-cn" || v.startsWith("zh")) return "cn";
  if (v === "en" || v.startsWith("en")) return "en";
  return undefined;
}

/** A text in both languages. */
export interface Bilingual {
  zh: string;
  en: string;
}

export function pick(text: Bilingual, lang: Lang): string {
  return lang === "en" ? text.en : text.zh;
}
