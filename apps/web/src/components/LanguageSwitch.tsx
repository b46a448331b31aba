import { Button, Divider } from "antd";
import { useChooseLang } from "../i18n/useChooseLang.ts";

/** The 中文 / English switchers (header and login shell). */
export function LanguageSwitch({ className }: { className?: string }) {
  const { lang, choose } = useChooseLang();

  return (
    <span className={`kw-lang ${className ?? ""}`}>
      <Button
        type="link"
        size="small"
        data-testid="lang-cn"
        aria-pressed={lang === "cn"}
        className={lang === "cn" ? "kw-lang-active" : undefined}
        onClick={() => choose("cn")}
      >
        中文
      </Button>
      <Divider orientation="vertical" />
      <Button
        type="link"
        size="small"
        data-testid="lang-en"
        aria-pressed={lang === "en"}
        className={lang === "en" ? "kw-lang-active" : undefined}
        onClick={() => choose("en")}
      >
        English
      </Button>
    </span>
  );
}
