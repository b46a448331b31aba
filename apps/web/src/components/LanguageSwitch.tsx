import type { Lang } from "@keyway/shared";
import { Button, Divider } from "antd";
import { useLocation, useNavigate } from "react-router";
import { LANGUAGE_PARAM, setLang, useLang } from "../i18n/index.ts";

/** The 中文 / English switchers (header and login shell). */
export function LanguageSwitch({ className }: { className?: string }) {
  const { lang } = useLang();
  const location = useLocation();
  const navigate = useNavigate();

  const choose = (next: Lang) => {
    setLang(next);
    // Keep an explicit ?language= in the address in step with the choice.
    const params = new URLSearchParams(location.search);
    if (params.has(LANGUAGE_PARAM) && params.get(LANGUAGE_PARAM) !== next) {
      params.set(LANGUAGE_PARAM, next);
      navigate({ pathname: location.pathname, search: `?${params}` }, { replace: true });
    }
  };

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
