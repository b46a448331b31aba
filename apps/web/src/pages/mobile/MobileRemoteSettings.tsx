import { Dialog, List, Switch, Tag, Toast } from "antd-mobile";
import {
  type RemoteSetting as Setting,
  useRemoteSettings,
} from "../../features/device/useRemoteSettings.ts";
import { useLang } from "../../i18n/index.ts";

/**
 * The device's remote-access settings on the phone, for its Akey and Bkeys (the desktop's
 * "Remote access" tab): what the agent offers, on-site consent and WebSockets for read-only
 * visitors. The Akey turns them (turning one on asks first); Bkeys see them.
 */
export function MobileRemoteSettings({ machineId }: { machineId: number }) {
  const { t } = useLang();
  const { settings, save } = useRemoteSettings(machineId, () =>
    Toast.show({ icon: "success", content: t("device.remote.saved") }),
  );
  const s = settings.data;
  if (!s) return null;

  const turn = async (name: Setting, on: boolean, title: string, content: string) => {
    if (on) {
      const yes = await Dialog.confirm({
        title,
        content,
        confirmText: (
          <span data-testid={`m-remote-${name}-confirm`}>{t("device.remote.turnOn")}</span>
        ),
        cancelText: t("common.cancel"),
      });
      if (!yes) return;
    }
    save.mutate({ [name]: on });
  };
  const pending = save.isPending ? Object.keys(save.variables ?? {})[0] : undefined;
  const row = (name: Setting, title: string, hint: string, confirm: [string, string]) => (
    <List.Item
      description={hint}
      extra={
        <Switch
          checked={s[name]}
          disabled={!s.can_edit}
          loading={pending === name}
          onChange={(on) => void turn(name, on, ...confirm)}
          data-testid={`m-remote-${name}`}
          data-state={s[name] ? "on" : "off"}
        />
      }
    >
      {title}
    </List.Item>
  );
  const consentConfirm = s.consent_supported
    ? t("device.remote.consentOnText")
    : `${t("device.remote.consentOnText")} ${t("device.remote.consentOnUnsupported")}`;
  return (
    <List mode="card" header={t("device.remote.tab")} data-testid="m-remote-settings">
      <List.Item
        description={
          <span className="kwm-row-actions">
            <Tag color={s.screen ? "primary" : "default"} fill="outline">
              {s.screen ? t("device.remote.screenOffered") : t("device.remote.screenNotOffered")}
            </Tag>
            <Tag color={s.consent_supported ? "success" : "warning"} fill="outline">
              {s.consent_supported
                ? t("device.remote.consentSupported")
                : t("device.remote.consentUnsupported")}
            </Tag>
          </span>
        }
      >
        {t("device.remote.agent")}
      </List.Item>
      {row("onsite_consent", t("device.remote.consent"), t("device.remote.consentHint"), [
        t("device.remote.consentOnTitle"),
        consentConfirm,
      ])}
      {row("readonly_websocket", t("device.remote.readonlyWs"), t("device.remote.readonlyWsHint"), [
        t("device.remote.readonlyWsOnTitle"),
        t("device.remote.readonlyWsOnText"),
      ])}
      {!s.can_edit && (
        <List.Item data-testid="m-remote-readonly">{t("device.remote.akeyOnly")}</List.Item>
      )}
    </List>
  );
}
