import { ApiOutlined, BellOutlined, SafetyCertificateOutlined } from "@ant-design/icons";
import { Card, Typography } from "antd";
import type { ReactNode } from "react";
import { BrandFooter } from "../brand/BrandFooter.tsx";
import { useBrand } from "../brand/brand.ts";
import { useLang } from "../i18n/index.ts";
import { LanguageSwitch } from "./LanguageSwitch.tsx";

interface Props {
  title?: ReactNode;
  subtitle?: ReactNode;
  children: ReactNode;
  /** Wider card for wizards. */
  wide?: boolean;
}

const FEATURES = [
  { icon: <ApiOutlined />, key: "shell.feature1" },
  { icon: <BellOutlined />, key: "shell.feature2" },
  { icon: <SafetyCertificateOutlined />, key: "shell.feature3" },
] as const;

/** Layout of the login shell pages: brand panel, form card, language switch and footer. */
export function AuthShell({ title, subtitle, children, wide }: Props) {
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
        <LanguageSwitch />
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
        <Card className={`kw-auth-card ${wide ? "kw-auth-card-wide" : ""}`} variant="borderless">
          {title && (
            <div className="kw-auth-card-head">
              <Typography.Title level={3} style={{ margin: 0 }}>
                {title}
              </Typography.Title>
              {subtitle && <Typography.Text type="secondary">{subtitle}</Typography.Text>}
            </div>
          )}
          {children}
        </Card>
      </main>
      <BrandFooter />
    </div>
  );
}
