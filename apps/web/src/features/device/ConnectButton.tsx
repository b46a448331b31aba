import { LoadingOutlined, LoginOutlined } from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { useQueryClient } from "@tanstack/react-query";
import { App, Button, Tooltip } from "antd";
import { type ReactNode, useCallback, useState } from "react";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { useClientConfig } from "../../api/portal.ts";
import { type VisitUrl, visitsApi } from "../../api/visits.ts";
import { useLang } from "../../i18n/index.ts";
import { terminalUUID } from "../../lib/terminal.ts";
import {
  CONSENT_HINT_AFTER_MS,
  type ConnectState,
  connectStateOf,
  visitHref,
} from "../../lib/visit.ts";
import { ConsentCountdown } from "./ConsentCountdown.tsx";
import { waitingTab } from "./connectTab.ts";
import { isOnline } from "./machine.ts";

const statusProps = (state: ConnectState, machineId: number) =>
  ({
    "data-testid": "connect-status",
    "data-state": state,
    "data-device": machineId,
  }) as object;

/** What Connect needs of a device (a list row, or a project's machine). */
export type ConnectTarget = Pick<Machine, "machine_id" | "machine_code" | "machine_name"> & {
  online?: boolean;
  state?: 0 | 1;
};

/**
 * Connecting to a device (SPEC §4 "Connection"): a new tab is opened at once, inside the
 * click, so that popup blockers let it through; the visit URL is asked for
 * (getValidVisitUrl, validVisitUrl with `eid` for an enterprise device, or the eapi
 * machine/getVisitUrl with `projectId` for a project's machine) and the tab sent
 * there, or closed when the server refuses. The states — connecting, online success, failed
 * or offline, not bound or cloud closed — show in a notification with the server's message.
 * A call still pending after a second is most likely held for on-site consent: the
 * notification and the tab then say so, with the seconds left (issue 20), unless the device's
 * settings (readable by its Akey and Bkeys) say it asks no one; a refusal at the machine ends
 * as "refused" with the server's message.
 */
export function useConnect() {
  const { t } = useLang();
  const { notification } = App.useApp();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState<ReadonlySet<number>>(() => new Set());
  const visitDomain = useClientConfig().data?.visitDomain ?? null;

  const mark = useCallback((id: number, on: boolean) => {
    setPending((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  const connect = useCallback(
    async (machine: ConnectTarget, eid?: number, projectId?: number) => {
      const id = machine.machine_id;
      const name = machine.machine_name || machine.machine_code;
      const key = `connect-${id}`;
      const tab = window.open("", "_blank");
      const waiting = tab ? waitingTab(tab) : null;
      if (tab) {
        // The device's page must not reach back into Keyway through window.opener.
        tab.opener = null;
        waiting?.show(t("device.connect.tabTitle"), t("device.connect.tabText", { name }));
      }
      mark(id, true);
      const since = Date.now();
      notification.info({
        key,
        title: t("device.connect.connecting", { name }),
        description: t("device.connect.connectingHint"),
        icon: <LoadingOutlined className="kw-primary-icon" />,
        duration: 0,
        props: statusProps("connecting", id),
      });
      // Whether the device asks the person at the machine; null when this user may not know.
      const asks = queryClient
        .fetchQuery({
          queryKey: queryKeys.remoteSettings(id),
          queryFn: () => visitsApi.remoteSettings(id),
          staleTime: 30_000,
          meta: { silent: true },
        })
        .then(
          (settings) => settings.onsite_consent,
          () => null,
        );
      let answered = false;
      const showWaiting = () => {
        if (answered) return;
        notification.info({
          key,
          title: t("device.connect.waiting", { name }),
          description: (
            <ConsentCountdown
              since={since}
              render={(seconds) => t("device.connect.waitingHint", { seconds })}
            />
          ),
          icon: <LoadingOutlined className="kw-primary-icon" />,
          duration: 0,
          props: statusProps("waiting", id),
        });
        waiting?.countdown(since, t("device.connect.waitingTitle"), (seconds) =>
          t("device.connect.waitingTab", { name, seconds }),
        );
      };
      const hint = window.setTimeout(() => {
        void asks.then((consent) => {
          if (consent !== false) showWaiting();
        });
      }, CONSENT_HINT_AFTER_MS);
      let visit: VisitUrl;
      try {
        visit = await visitsApi.urlFor(id, { eid, projectId }, terminalUUID(), "web");
      } catch (error) {
        tab?.close();
        if (error instanceof ApiError && error.kind === "session") {
          notification.destroy(key);
          return;
        }
        const state = connectStateOf(error);
        const text = error instanceof Error ? error.message : String(error);
        const show = state === "offline" ? notification.warning : notification.error;
        show({
          key,
          title: t(`device.connect.${state}`, { name }),
          description: text,
          duration: 8,
          props: statusProps(state, id),
        });
        return;
      } finally {
        answered = true;
        window.clearTimeout(hint);
        waiting?.stop();
        mark(id, false);
      }
      const href = visitHref(visit, window.location, visitDomain);
      if (tab && !tab.closed) {
        tab.location.replace(href);
        notification.success({
          key,
          title: t("device.connect.online", { name }),
          description: t("device.connect.onlineHint"),
          props: statusProps("online", id),
        });
        return;
      }
      // No tab (blocked, or closed meanwhile): the link opens it on a second click.
      notification.success({
        key,
        title: t("device.connect.online", { name }),
        description: t("device.connect.blocked"),
        duration: 0,
        actions: (
          <Button
            type="primary"
            size="small"
            href={href}
            target="_blank"
            rel="noopener noreferrer"
            onClick={() => notification.destroy(key)}
            data-testid="connect-open"
          >
            {t("device.connect.open")}
          </Button>
        ),
        props: statusProps("online", id),
      });
    },
    [t, notification, mark, visitDomain, queryClient],
  );

  return { connect, isPending: (id: number) => pending.has(id) };
}

/**
 * "Connect": disabled with the reason while the device is offline (its live state).
 * `variant` "link" in tables, "button" in a drawer's header.
 */
export function ConnectButton<M extends ConnectTarget>({
  machine,
  onConnect,
  loading,
  testId,
  variant = "link",
}: {
  machine: M;
  onConnect: (machine: M) => void;
  loading: boolean;
  testId: string;
  variant?: "link" | "button";
}) {
  const { t } = useLang();
  const online = isOnline(machine);
  const button = (
    <Button
      type={variant === "link" ? "link" : "primary"}
      size={variant === "link" ? "small" : "middle"}
      icon={variant === "button" ? <LoginOutlined /> : undefined}
      disabled={!online}
      loading={loading}
      onClick={() => onConnect(machine)}
      data-testid={testId}
      data-online={online ? 1 : 0}
    >
      {t("device.connect.button")}
    </Button>
  );
  return <OfflineHint online={online}>{button}</OfflineHint>;
}

/** A device's action button, with the reason it is disabled while the device is offline. */
export function OfflineHint({ online, children }: { online: boolean; children: ReactNode }) {
  const { t } = useLang();
  if (online) return children;
  return (
    <Tooltip title={t("device.connect.offlineHint")}>
      <span className="kw-inline-block">{children}</span>
    </Tooltip>
  );
}
