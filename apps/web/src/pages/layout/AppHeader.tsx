import {
  ApiOutlined,
  DownOutlined,
  MenuOutlined,
  MobileOutlined,
  RocketOutlined,
} from "@ant-design/icons";
import type { UserInfo } from "@keyway/shared";
import { Avatar, Button, Popover, Skeleton, Typography } from "antd";
import { useState } from "react";
import { Link } from "react-router";
import { useClientConfig } from "../../api/portal.ts";
import { BrandLogo } from "../../brand/BrandLogo.tsx";
import { useBrand } from "../../brand/brand.ts";
import { LanguageSwitch } from "../../components/LanguageSwitch.tsx";
import { useLang } from "../../i18n/index.ts";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";
import { initialsOf, UserInfoPanel } from "./UserInfoPanel.tsx";
import { useLogout } from "./useLogout.ts";

/**
 * Header: brand logo and name, language switchers, user name with avatar (SPEC §2). On a
 * narrow window it also carries the button that opens the folded navigation.
 */
export function AppHeader({
  user,
  onToggleNav,
  navOpen = false,
}: {
  user: UserInfo | undefined;
  onToggleNav?: () => void;
  navOpen?: boolean;
}) {
  const { t } = useLang();
  const [open, setOpen] = useState(false);
  const { logout, pending } = useLogout();
  return (
    <header className="kw-header">
      <div className="kw-header-left">
        {onToggleNav && (
          <Button
            type="text"
            icon={<MenuOutlined />}
            aria-label={t("portal.header.menu")}
            aria-expanded={navOpen}
            onClick={onToggleNav}
            data-testid="nav-toggle"
          />
        )}
        <Link to={LANDING_ROUTE} className="kw-header-brand">
          <BrandLogo size={32} />
        </Link>
      </div>
      <div className="kw-header-right">
        <HeaderLinks />
        <LanguageSwitch />
        <Popover
          trigger="click"
          placement="bottomRight"
          open={open}
          onOpenChange={setOpen}
          arrow={false}
          content={
            <UserInfoPanel
              user={user}
              loggingOut={pending}
              onNavigate={() => setOpen(false)}
              onLogout={logout}
            />
          }
        >
          <button type="button" className="kw-user" data-testid="user-avatar">
            <Avatar size={32} className="kw-avatar">
              {initialsOf(user?.name)}
            </Avatar>
            {user ? (
              <span className="kw-user-name" data-testid="user-name">
                {user.name}
              </span>
            ) : (
              <Skeleton.Input active size="small" style={{ width: 64 }} />
            )}
            <DownOutlined className="kw-user-arrow" />
          </button>
        </Popover>
      </div>
    </header>
  );
}

/**
 * The header's links (SPEC §2): the new product version — NEW_VERSION_URL when the operator
 * names one, else the brand's website, where the brand presents its current product — the
 * API documentation the server serves, and the brand's app download page.
 */
function HeaderLinks() {
  const { t } = useLang();
  const { brand } = useBrand();
  const config = useClientConfig();
  // While the configuration loads the link waits (it would otherwise jump to another URL).
  const newVersionUrl = config.data ? (config.data.newVersionUrl ?? brand.website) : null;
  return (
    <nav className="kw-header-links" style={{ display: "flex", alignItems: "center", gap: 16 }}>
      {newVersionUrl && (
        <Typography.Link
          href={newVersionUrl}
          target="_blank"
          rel="noopener"
          data-testid="header-new-version"
          aria-label={t("portal.header.newVersion")}
        >
          <RocketOutlined />{" "}
          <span className="kw-header-link-text">{t("portal.header.newVersion")}</span>
        </Typography.Link>
      )}
      <Typography.Link
        href={config.data?.apiDocUrl ?? "/apiDoc"}
        target="_blank"
        rel="noopener"
        data-testid="header-api-doc"
        aria-label={t("portal.header.apiDoc")}
      >
        <ApiOutlined /> <span className="kw-header-link-text">{t("portal.header.apiDoc")}</span>
      </Typography.Link>
      <Link
        to={PATHS.appDownload}
        className="ant-typography"
        data-testid="header-app-download"
        aria-label={t("portal.header.appDownload")}
      >
        <MobileOutlined />{" "}
        <span className="kw-header-link-text">{t("portal.header.appDownload")}</span>
      </Link>
    </nav>
  );
}
