import { DownOutlined } from "@ant-design/icons";
import type { UserInfo } from "@keyway/shared";
import { Avatar, Popover, Skeleton } from "antd";
import { useState } from "react";
import { Link } from "react-router";
import { BrandLogo } from "../../brand/BrandLogo.tsx";
import { LanguageSwitch } from "../../components/LanguageSwitch.tsx";
import { LANDING_ROUTE } from "../../paths.ts";
import { initialsOf, UserInfoPanel } from "./UserInfoPanel.tsx";
import { useLogout } from "./useLogout.ts";

/** Header: brand logo and name, language switchers, user name with avatar (SPEC §2). */
export function AppHeader({ user }: { user: UserInfo | undefined }) {
  const [open, setOpen] = useState(false);
  const { logout, pending } = useLogout();
  return (
    <header className="kw-header">
      <Link to={LANDING_ROUTE} className="kw-header-brand">
        <BrandLogo size={32} />
      </Link>
      <div className="kw-header-right">
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
