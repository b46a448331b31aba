import {
  EditOutlined,
  EnvironmentOutlined,
  IdcardOutlined,
  LockOutlined,
  MailOutlined,
  MobileOutlined,
  UserOutlined,
} from "@ant-design/icons";
import type { UserInfo } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Button, Card, Skeleton, Switch, Tag, Typography } from "antd";
import { type ReactNode, useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { userApi } from "../../api/user.ts";
import { useLang } from "../../i18n/index.ts";
import { USER_STATE, useAppStore } from "../../store/app.ts";
import { ChangeAccountModal } from "./ChangeAccountModal.tsx";
import { ChangeNameModal } from "./ChangeNameModal.tsx";
import { ChangePasswordModal } from "./ChangePasswordModal.tsx";

type Dialog = "name" | "password" | "phone" | "email" | null;

function Row(props: {
  icon: ReactNode;
  label: ReactNode;
  value: ReactNode;
  hint?: ReactNode;
  action?: ReactNode;
  testId?: string;
}) {
  return (
    <div className="kw-setting-row" data-testid={props.testId}>
      <span className="kw-setting-icon">{props.icon}</span>
      <div className="kw-setting-main">
        <div className="kw-setting-label">{props.label}</div>
        <div className="kw-setting-value">{props.value}</div>
        {props.hint && <div className="kw-setting-hint">{props.hint}</div>}
      </div>
      {props.action && <div className="kw-setting-action">{props.action}</div>}
    </div>
  );
}

/** Account section of the security center: name, account, phone, e-mail, password, hide map. */
export function AccountCard({ user, loading }: { user: UserInfo | undefined; loading: boolean }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [dialog, setDialog] = useState<Dialog>(null);
  const close = () => setDialog(null);

  const hideMap = useMutation({
    mutationFn: (on: boolean) => userApi.setHideMap({ hideMap: on }),
    onSuccess: async (_data, on) => {
      useAppStore.getState().setUserState(USER_STATE.hideMapChanged);
      message.success(on ? t("safety.hideMapOn") : t("safety.hideMapOff"));
      await queryClient.invalidateQueries({ queryKey: queryKeys.userInfo });
    },
  });

  const state = (verified: 0 | 1 | undefined) =>
    verified === 1 ? (
      <Tag color="success">{t("safety.verified")}</Tag>
    ) : (
      <Tag>{t("safety.unverified")}</Tag>
    );

  return (
    <Card title={t("safety.accountCard")} className="kw-card">
      {loading || !user ? (
        <Skeleton active paragraph={{ rows: 5 }} />
      ) : (
        <div className="kw-settings">
          <Row
            testId="safety-row-name"
            icon={<UserOutlined />}
            label={t("safety.name")}
            value={<span data-testid="safety-name">{user.name}</span>}
            action={
              <Button
                icon={<EditOutlined />}
                onClick={() => setDialog("name")}
                data-testid="safety-edit-name"
              >
                {t("common.edit")}
              </Button>
            }
          />
          <Row
            icon={<IdcardOutlined />}
            label={t("safety.account")}
            value={<span data-testid="safety-account">{user.account}</span>}
          />
          <Row
            icon={<MobileOutlined />}
            label={t("safety.phone")}
            value={
              user.phone ? (
                <span>
                  <span data-testid="safety-phone">{`+${user.countryCode} ${user.phone}`}</span>{" "}
                  {state(user.phone_state)}
                </span>
              ) : (
                <Typography.Text type="secondary">{t("common.notSet")}</Typography.Text>
              )
            }
            action={
              <Button onClick={() => setDialog("phone")} data-testid="safety-change-phone">
                {user.phone ? t("common.change") : t("safety.bindPhone")}
              </Button>
            }
          />
          <Row
            icon={<MailOutlined />}
            label={t("safety.email")}
            value={
              user.email ? (
                <span>
                  <span data-testid="safety-email">{user.email}</span> {state(user.email_state)}
                </span>
              ) : (
                <Typography.Text type="secondary">{t("common.notSet")}</Typography.Text>
              )
            }
            action={
              <Button onClick={() => setDialog("email")} data-testid="safety-change-email">
                {user.email ? t("common.change") : t("safety.bindEmail")}
              </Button>
            }
          />
          <Row
            icon={<LockOutlined />}
            label={t("safety.password")}
            value={t("safety.passwordMask")}
            action={
              <Button onClick={() => setDialog("password")} data-testid="safety-change-password">
                {t("common.change")}
              </Button>
            }
          />
          <Row
            icon={<EnvironmentOutlined />}
            label={t("safety.hideMap")}
            value={null}
            hint={t("safety.hideMapHint")}
            action={
              <Switch
                checked={user.hideMap === 1}
                loading={hideMap.isPending}
                onChange={(on) => hideMap.mutate(on)}
                data-testid="safety-hide-map"
              />
            }
          />
        </div>
      )}

      <ChangeNameModal open={dialog === "name"} current={user?.name ?? ""} onClose={close} />
      <ChangePasswordModal open={dialog === "password"} onClose={close} />
      <ChangeAccountModal
        kind="phone"
        open={dialog === "phone"}
        title={user?.phone ? t("safety.changePhone") : t("safety.bindPhone")}
        currentCountryCode={user?.countryCode}
        onClose={close}
      />
      <ChangeAccountModal
        kind="email"
        open={dialog === "email"}
        title={user?.email ? t("safety.changeEmail") : t("safety.bindEmail")}
        onClose={close}
      />
    </Card>
  );
}
