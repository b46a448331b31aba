import { Card, Typography } from "antd";
import type { ReactNode } from "react";
import { BrandFooter } from "../brand/BrandFooter.tsx";
import { AuthFrame } from "./AuthFrame.tsx";
import { LanguageSwitch } from "./LanguageSwitch.tsx";

interface Props {
  title?: ReactNode;
  subtitle?: ReactNode;
  children: ReactNode;
  /** Wider card for wizards. */
  wide?: boolean;
}

/** Layout of the login shell pages: brand panel, form card, language switch and footer. */
export function AuthShell({ title, subtitle, children, wide }: Props) {
  return (
    <AuthFrame
      top={<LanguageSwitch />}
      card={
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
      }
      footer={<BrandFooter />}
    />
  );
}
