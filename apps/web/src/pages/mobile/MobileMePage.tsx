import { changeNameForm, PAGE_SIZE, type TerminalEntry } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Button, Dialog, Form, Input, List, Popup, Tag, Toast } from "antd-mobile";
import { useState } from "react";
import { useUserInfo } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { safetyApi } from "../../api/safety.ts";
import { userApi } from "../../api/user.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { USER_STATE, useAppStore } from "../../store/app.ts";
import { MobileBrand, MobileHeader, MobileLanguageSwitch } from "./parts.tsx";
import { useMobileSignOut } from "./useSignOut.ts";
import { useMobileZodRule } from "./zodRule.ts";

const TYPES = ["web", "mobile", "android", "ios", "tv", "pc"] as const;

/**
 * The user on the phone: name (changed with the shared name form), account, language, the
 * logged-in terminals with type, login time and token expiry (GET /user/v1/tokenInfo, first
 * page; delete asked first — deleting
 * this phone's own is a logout) and log out (asked first; POST /user/logout).
 */
export function MobileMePage() {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const user = useUserInfo().data;
  const [naming, setNaming] = useState(false);
  const signOut = useMobileSignOut();
  const terminals = useQuery({
    queryKey: queryKeys.terminals(1),
    queryFn: () => safetyApi.terminals(1, PAGE_SIZE.tokenList),
  });
  const remove = useMutation({
    mutationFn: (entry: TerminalEntry) => safetyApi.removeTerminal(entry.id),
    onSuccess: async (_data, entry) => {
      useAppStore.getState().setUserState(USER_STATE.terminalRemoved);
      if (entry.current) {
        signOut();
        return;
      }
      Toast.show({ icon: "success", content: t("safety.terminalRemoved") });
      await queryClient.invalidateQueries({ queryKey: queryKeys.terminalsAll });
    },
  });

  const logout = async () => {
    const yes = await Dialog.confirm({
      content: t("m.me.logoutConfirm"),
      confirmText: <span data-testid="m-logout-ok">{t("layout.logout")}</span>,
      cancelText: t("common.cancel"),
    });
    if (!yes) return;
    try {
      await userApi.logout();
    } catch {
      // the token may already be gone on the server: sign out locally anyway
    }
    signOut();
    Toast.show({ content: t("layout.loggedOut") });
  };

  const typeLabel = (type: string) =>
    (TYPES as readonly string[]).includes(type.toLowerCase())
      ? t(`safety.terminalTypes.${type.toLowerCase() as (typeof TYPES)[number]}`)
      : type || t("safety.terminalTypes.other");

  const removeTerminal = async (entry: TerminalEntry) => {
    const yes = await Dialog.confirm({
      content: entry.current ? t("safety.removeCurrentConfirm") : t("safety.removeConfirm"),
      confirmText: <span data-testid="m-terminal-remove-ok">{t("common.delete")}</span>,
      cancelText: t("common.cancel"),
    });
    if (yes) remove.mutate(entry);
  };

  return (
    <div data-testid="m-me">
      <MobileHeader title={t("m.tabs.me")} />
      <div className="kwm-me-card">
        <div className="kwm-avatar">{(user?.name ?? "?").slice(0, 1).toUpperCase()}</div>
        <div>
          <div className="kwm-me-name" data-testid="m-me-name">
            {user?.name}
          </div>
          <div className="kwm-me-account" data-testid="m-me-account">
            {user?.email || (user?.phone ? `+${user.countryCode} ${user.phone}` : "")}
          </div>
        </div>
      </div>
      <List mode="card">
        <List.Item extra={user?.name} onClick={() => setNaming(true)} data-testid="m-me-rename">
          {t("field.name")}
        </List.Item>
        <List.Item extra={<MobileLanguageSwitch />}>{t("m.me.language")}</List.Item>
      </List>
      <List mode="card" header={t("safety.terminals")} data-testid="m-terminals">
        {terminals.isPending && <List.Item>{t("common.loading")}</List.Item>}
        {terminals.error && <List.Item>{terminals.error.message}</List.Item>}
        {terminals.data?.list.map((entry) => (
          <List.Item
            key={entry.id}
            data-testid={`m-terminal-${entry.id}`}
            description={
              <>
                <div>{`${t("safety.colLoginTime")}: ${formatDateTime(entry.loginTime)}`}</div>
                <div data-testid="m-terminal-expiry">
                  {`${t("safety.colExpiry")}: ${formatDateTime(entry.expiredTime)}`}
                </div>
              </>
            }
            extra={
              <Button
                size="mini"
                color="danger"
                fill="outline"
                onClick={() => void removeTerminal(entry)}
                data-testid="m-terminal-remove"
              >
                {t("common.delete")}
              </Button>
            }
          >
            {entry.name || entry.type}
            <span className="kwm-muted" data-testid="m-terminal-type" data-type={entry.type}>
              {" · "}
              {typeLabel(entry.type)}
            </span>{" "}
            {entry.current && (
              <Tag color="primary" fill="outline" data-testid="m-terminal-current">
                {t("safety.thisDevice")}
              </Tag>
            )}
          </List.Item>
        ))}
      </List>
      <div className="kwm-actions">
        <Button
          block
          color="danger"
          size="large"
          onClick={() => void logout()}
          data-testid="m-logout"
        >
          {t("layout.logout")}
        </Button>
      </div>
      <div className="kwm-footer">
        <MobileBrand size={18} />
      </div>
      <RenameSheet visible={naming} name={user?.name ?? ""} onClose={() => setNaming(false)} />
    </div>
  );
}

function RenameSheet({
  visible,
  name,
  onClose,
}: {
  visible: boolean;
  name: string;
  onClose: () => void;
}) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const rule = useMobileZodRule(changeNameForm);
  const save = useMutation({
    mutationFn: (values: unknown) => userApi.changeName(parseForm(changeNameForm, values)),
    onSuccess: async () => {
      useAppStore.getState().setUserState(USER_STATE.nameChanged);
      Toast.show({ icon: "success", content: t("safety.nameChanged") });
      await queryClient.invalidateQueries({ queryKey: queryKeys.userInfo });
      onClose();
    },
  });
  return (
    <Popup visible={visible} onMaskClick={onClose} destroyOnClose bodyClassName="kwm-sheet">
      <h2 className="kwm-sheet-title">{t("safety.changeName")}</h2>
      <Form
        layout="vertical"
        initialValues={{ name }}
        onFinish={(values) => save.mutate(values)}
        footer={
          <Button
            block
            color="primary"
            type="submit"
            loading={save.isPending}
            data-testid="m-rename-save"
          >
            {t("common.save")}
          </Button>
        }
      >
        <Form.Item name="name" label={t("field.name")} rules={[rule("name")]}>
          <Input placeholder={t("placeholder.name")} data-testid="m-rename-input" />
        </Form.Item>
      </Form>
    </Popup>
  );
}
