import {
  AppstoreOutlined,
  DeleteOutlined,
  EditOutlined,
  LockOutlined,
  MailOutlined,
  MobileOutlined,
  SafetyCertificateOutlined,
} from "@ant-design/icons";
import type { UserInfo } from "@keyway/shared";
import { Avatar, Button, Descriptions, Divider, Flex, Skeleton, Tag, Typography } from "antd";
import { useState } from "react";
import { useNavigate } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { useLang } from "../../i18n/index.ts";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";
import { initialsOf } from "../layout/UserInfoPanel.tsx";
import { ChangeNameModal } from "../safety/ChangeNameModal.tsx";
import { RequireLogin } from "./RequireLogin.tsx";

function Verified({ on }: { on: 0 | 1 }) {
  const { t } = useLang();
  return on === 1 ? (
    <Tag color="success">{t("safety.verified")}</Tag>
  ) : (
    <Tag>{t("safety.unverified")}</Tag>
  );
}

function Details({ user }: { user: UserInfo }) {
  const { t } = useLang();
  const navigate = useNavigate();
  const [editingName, setEditingName] = useState(false);
  return (
    <>
      <Flex gap={12} align="center">
        <Avatar size={56} className="kw-avatar">
          {initialsOf(user.name)}
        </Avatar>
        <div>
          <Typography.Title level={4} style={{ margin: 0 }} data-testid="userinfo-name">
            {user.name}
          </Typography.Title>
          <Typography.Text type="secondary" data-testid="userinfo-account">
            {user.account}
          </Typography.Text>
        </div>
        <Button
          style={{ marginLeft: "auto" }}
          icon={<EditOutlined />}
          onClick={() => setEditingName(true)}
          data-testid="userinfo-edit-name"
        >
          {t("safety.changeName")}
        </Button>
      </Flex>
      <Divider />
      <Descriptions
        column={1}
        colon={false}
        styles={{ label: { width: 96 } }}
        items={[
          {
            key: "phone",
            label: t("safety.phone"),
            children: user.phone ? (
              <span>
                <span data-testid="userinfo-phone">{`+${user.countryCode} ${user.phone}`}</span>{" "}
                <Verified on={user.phone_state} />
              </span>
            ) : (
              <Typography.Text type="secondary">{t("common.notSet")}</Typography.Text>
            ),
          },
          {
            key: "email",
            label: t("safety.email"),
            children: user.email ? (
              <span>
                <span data-testid="userinfo-email">{user.email}</span>{" "}
                <Verified on={user.email_state} />
              </span>
            ) : (
              <Typography.Text type="secondary">{t("common.notSet")}</Typography.Text>
            ),
          },
          {
            key: "role",
            label: t("account.role"),
            children: user.role === "operator" ? t("account.roleOperator") : t("account.roleUser"),
          },
        ]}
      />
      <Divider />
      <Flex wrap gap={8}>
        <Button
          icon={<MobileOutlined />}
          onClick={() => navigate(PATHS.modifyPhone)}
          data-testid="userinfo-phone-change"
        >
          {user.phone ? t("safety.changePhone") : t("safety.bindPhone")}
        </Button>
        <Button
          icon={<MailOutlined />}
          onClick={() => navigate(PATHS.modifyEmail)}
          data-testid="userinfo-email-change"
        >
          {user.email ? t("safety.changeEmail") : t("safety.bindEmail")}
        </Button>
        <Button
          icon={<LockOutlined />}
          onClick={() => navigate(PATHS.recoverPwd)}
          data-testid="userinfo-password-change"
        >
          {t("safety.changePassword")}
        </Button>
        <Button
          icon={<SafetyCertificateOutlined />}
          onClick={() => navigate(PATHS.safety)}
          data-testid="userinfo-safety"
        >
          {t("layout.securityCenter")}
        </Button>
        <Button
          icon={<AppstoreOutlined />}
          onClick={() => navigate(LANDING_ROUTE)}
          data-testid="userinfo-devices"
        >
          {t("account.toDevices")}
        </Button>
        <Button
          danger
          icon={<DeleteOutlined />}
          onClick={() => navigate(PATHS.deleteAccount)}
          data-testid="userinfo-delete"
        >
          {t("safety.deleteAccount")}
        </Button>
      </Flex>
      <ChangeNameModal
        open={editingName}
        current={user.name}
        onClose={() => setEditingName(false)}
      />
    </>
  );
}

function UserInfoContent() {
  const { t } = useLang();
  const user = useUserInfo();
  return (
    <AuthShell title={t("account.userInfoTitle")} subtitle={t("account.userInfoHint")} wide>
      <div data-testid="userinfo-page">
        {user.data ? (
          <Details user={user.data} />
        ) : user.isError ? (
          <Flex vertical align="center" gap={8}>
            <Typography.Text type="secondary">{t("common.loadFailed")}</Typography.Text>
            <Button onClick={() => user.refetch()}>{t("common.retry")}</Button>
          </Flex>
        ) : (
          <Skeleton active avatar paragraph={{ rows: 4 }} />
        )}
      </div>
    </AuthShell>
  );
}

/** /userInfo: the personal information page of the login shell, with the ways to change it. */
export function UserInfoPage() {
  return (
    <RequireLogin>
      <UserInfoContent />
    </RequireLogin>
  );
}
