import { ApiOutlined, BellOutlined, SafetyCertificateOutlined } from "@ant-design/icons";
import type { ReactNode } from "react";
import { useBrand } from "../brand/brand.ts";
import { useLang } from "../i18n/index.ts";

const FEATURES = [
  { icon: <ApiOutlined />, key: "shell.feature1" },
  { icon: <BellOutlined />, key: "shell.feature2" },
  { icon: <SafetyCertificateOutlined />, key: "shell.feature3" },
] as const;

/**
 * The brand side of the login shell: logo and name on top, the brand panel beside `card`.
 * Light (no antd component): it is also what shows while a login-shell page's chunk loads.
 */
export function AuthFrame({
  top,
  card,
  footer,
}: {
  top?: ReactNode;
  card: ReactNode;
  footer?: ReactNode;
}) {
  const { wording, logo } = useBrand();
  const { t } = useLang();
  return (
    <div className="kw-auth">
      <header className="kw-auth-top">
        <span className="kw-brand">
          <img src={logo} width={32} height={32} alt="" className="kw-brand-logo" />
          <span className="kw-brand-name" data-testid="brand-name">
            {wording.name}
          </span>
        </span>
        {top}
      </header>
      <main className="kw-auth-main">
        <section className="kw-auth-hero" aria-hidden>
          <img src={logo} width={64} height={64} alt="" />
          <h1>{wording.name}</h1>
          <p className="kw-auth-hero-title">{wording.title}</p>
          <ul>
            {FEATURES.map((f) => (
              <li key={f.key}>
                <span className="kw-auth-hero-icon">{f.icon}</span>
                {t(f.key)}
              </li>
            ))}
          </ul>
        </section>
        {card}
      </main>
      {footer}
    </div>
  );
}

/**
 * A login-shell page while its chunk loads: the brand side at once, a spinner in the card's
 * place (the card, the language switch and the footer come with the page). No antd component:
 * main.tsx paints it before antd's theme is set up.
 */
export function AuthShellLoading() {
  return (
    <AuthFrame
      card={
        <div className="kw-auth-card kw-auth-card-loading" aria-busy="true">
          <span className="kw-spinner" />
        </div>
      }
    />
  );
}
