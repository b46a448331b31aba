import {
  ClusterOutlined,
  LogoutOutlined,
  SafetyCertificateOutlined,
  SettingOutlined,
} from "@ant-design/icons";
import type { UserInfo } from "@keyway/shared";
import { Avatar, Button, Descriptions, Divider, Flex, Typography } from "antd";
import { Link } from "react-router";
import { useLang } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";
import { useAppStore } from "../../store/app.ts";

export function initialsOf(name: string | undefined): string {
  const trimmed = (name ?? "").trim();
  if (!trimmed) return "?";
  return /^[\p{Script=Han}]/u.test(trimmed) ? trimmed.slice(-2) : trimmed.slice(0, 1).toUpperCase();
}

interface Props {
  user: UserInfo | undefined;
  onNavigate: () => void;
  onLogout: () => void;
  loggingOut: boolean;
}

/** The user-info panel opened by the header avatar. */
export function UserInfoPanel({ user, onNavigate, onLogout, loggingOut }: Props) {
  const { t } = useLang();
  const adminOfSome = useAppStore((s) => s.enterprisesList.some((e) => e.isAdmin === 1));
  const phone = user?.phone ? `+${user.countryCode} ${user.phone}` : t("common.notSet");
  return (
    <div className="kw-user-panel" data-testid="user-panel">
      <Flex gap={12} align="center">
        <Avatar size={48} className="kw-avatar">
          {initialsOf(user?.name)}
        </Avatar>
        <div className="kw-user-panel-id">
          <Typography.Text strong data-testid="user-panel-name">
            {user?.name}
          </Typography.Text>
          <Typography.Text type="secondary" className="kw-ellipsis">
            {user?.account}
          </Typography.Text>
        </div>
      </Flex>
      <Divider className="kw-divider-sm" />
      <Descriptions
        column={1}
        size="small"
        colon={false}
        items={[
          { key: "phone", label: t("safety.phone"), children: phone },
          { key: "email", label: t("safety.email"), children: user?.email || t("common.notSet") },
        ]}
      />
      <Divider className="kw-divider-sm" />
      <Flex vertical gap={4}>
        <Link to={PATHS.safety} onClick={onNavigate} data-testid="user-panel-safety">
          <SafetyCertificateOutlined /> {t("layout.securityCenter")}
        </Link>
        {(adminOfSome || user?.role === "operator") && (
          <Link
            to={PATHS.administrateCenter}
            onClick={onNavigate}
            data-testid="user-panel-admincenter"
          >
            <ClusterOutlined /> {t("layout.adminCenter")}
          </Link>
        )}
        {user?.role === "operator" && (
          <Link to={PATHS.backManage} onClick={onNavigate} data-testid="user-panel-backmanage">
            <SettingOutlined /> {t("layout.backManage")}
          </Link>
        )}
      </Flex>
      <Button
        block
        danger
        icon={<LogoutOutlined />}
        className="kw-mt"
        loading={loggingOut}
        onClick={onLogout}
        data-testid="logout"
      >
        {t("layout.logout")}
      </Button>
    </div>
  );
}
