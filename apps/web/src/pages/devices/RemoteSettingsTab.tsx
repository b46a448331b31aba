import { DesktopOutlined, SafetyCertificateOutlined } from "@ant-design/icons";
import { Alert, App, Card, Flex, Popconfirm, Skeleton, Switch, Tag, Typography } from "antd";
import { type ReactNode, useState } from "react";
import type { RemoteSettings } from "../../api/visits.ts";
import { LoadFailed } from "../../components/LoadFailed.tsx";
import {
  type RemoteSetting as Setting,
  useRemoteSettings,
} from "../../features/device/useRemoteSettings.ts";
import { useLang } from "../../i18n/index.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

/**
 * A device's remote-access settings (GET/POST /device/v1/remoteSettings), for its Akey and
 * Bkeys: what its agent offers (a screen, on-site consent), and the two switches — on-site
 * consent and WebSockets for read-only visitors. The Akey changes them (turning either on is
 * confirmed first: consent makes visitors wait; WebSockets loosen view only); Bkeys see them.
 */
export function RemoteSettingsTab({ machineId }: { machineId: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const { settings, save } = useRemoteSettings(machineId, () =>
    message.success(t("device.remote.saved")),
  );

  if (settings.isPending) return <Skeleton active paragraph={{ rows: 4 }} />;
  if (settings.isError) {
    return <LoadFailed error={settings.error} onRetry={() => settings.refetch()} />;
  }
  const s = settings.data;
  const pending = save.isPending ? Object.keys(save.variables ?? {})[0] : undefined;
  return (
    <Flex vertical gap={16} data-testid="remote-settings">
      <Flex gap={8} align="center" wrap data-testid="remote-agent">
        <Typography.Text type="secondary">{t("device.remote.agent")}</Typography.Text>
        <Tag
          icon={<DesktopOutlined />}
          color={s.screen ? "blue" : "default"}
          data-testid="remote-screen"
          data-value={s.screen ? 1 : 0}
        >
          {s.screen ? t("device.remote.screenOffered") : t("device.remote.screenNotOffered")}
        </Tag>
        <Tag
          icon={<SafetyCertificateOutlined />}
          color={s.consent_supported ? "green" : "orange"}
          data-testid="remote-consent-supported"
          data-value={s.consent_supported ? 1 : 0}
        >
          {s.consent_supported
            ? t("device.remote.consentSupported")
            : t("device.remote.consentUnsupported")}
        </Tag>
      </Flex>
      {!s.can_edit && (
        <Alert
          type="info"
          showIcon
          title={t("device.remote.akeyOnly")}
          data-testid="remote-readonly"
        />
      )}
      <SettingCard
        settings={s}
        name="onsite_consent"
        title={t("device.remote.consent")}
        hint={t("device.remote.consentHint")}
        confirmTitle={t("device.remote.consentOnTitle")}
        confirmText={
          <>
            {t("device.remote.consentOnText")}
            {!s.consent_supported && (
              <Typography.Text type="warning" className="kw-block kw-mt-sm">
                {t("device.remote.consentOnUnsupported")}
              </Typography.Text>
            )}
          </>
        }
        loading={pending === "onsite_consent"}
        onChange={(on) => save.mutate({ onsite_consent: on })}
      />
      <SettingCard
        settings={s}
        name="readonly_websocket"
        title={t("device.remote.readonlyWs")}
        hint={t("device.remote.readonlyWsHint")}
        confirmTitle={t("device.remote.readonlyWsOnTitle")}
        confirmText={t("device.remote.readonlyWsOnText")}
        loading={pending === "readonly_websocket"}
        onChange={(on) => save.mutate({ readonly_websocket: on })}
      />
    </Flex>
  );
}

/** One switch with its explanation; turning it on asks first, turning it off does not. */
function SettingCard(props: {
  settings: RemoteSettings;
  name: Setting;
  title: string;
  hint: string;
  confirmTitle: string;
  confirmText: ReactNode;
  loading: boolean;
  onChange: (on: boolean) => void;
}) {
  const { t } = useLang();
  const [confirming, setConfirming] = useState(false);
  const on = props.settings[props.name];
  const editable = props.settings.can_edit;
  const control = (
    <Switch
      checked={on}
      disabled={!editable}
      loading={props.loading}
      checkedChildren={t("device.remote.on")}
      unCheckedChildren={t("device.remote.off")}
      // Turning on goes through the confirmation.
      onChange={(next) => {
        if (!next) props.onChange(false);
      }}
      data-testid={`remote-${props.name}`}
      data-state={on ? "on" : "off"}
    />
  );
  return (
    <Card size="small" data-testid={`remote-card-${props.name}`}>
      <Flex justify="space-between" align="flex-start" gap={16}>
        <div>
          <Typography.Text strong>{props.title}</Typography.Text>
          <Typography.Paragraph type="secondary" className="kw-small kw-mb-0">
            {props.hint}
          </Typography.Paragraph>
        </div>
        {editable ? (
          <Popconfirm
            open={confirming}
            onOpenChange={(next) => setConfirming(next && !on && !props.loading)}
            title={props.confirmTitle}
            description={<span className="kw-popconfirm-text">{props.confirmText}</span>}
            okText={t("device.remote.turnOn")}
            cancelText={t("common.cancel")}
            okButtonProps={{ ...testId(`remote-${props.name}-confirm`) }}
            onConfirm={() => {
              setConfirming(false);
              props.onChange(true);
            }}
          >
            {control}
          </Popconfirm>
        ) : (
          control
        )}
      </Flex>
    </Card>
  );
}
