import type { AlarmEntry } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, Dialog, List, Tag, Toast } from "antd-mobile";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { AlarmLevelTag } from "./parts.tsx";

/**
 * One alarm on the phone: level, content, device, when, confirmed / cleared, and Confirm
 * (asked first; PUT /v1/devices/alarms, the alarm centre's call) while it is unconfirmed and
 * the user may (`canConfirm`; the server refuses others with its message).
 */
export function AlarmItem({
  alarm,
  eid,
  canConfirm = true,
  showDevice = true,
}: {
  alarm: AlarmEntry;
  eid: number;
  canConfirm?: boolean;
  showDevice?: boolean;
}) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const confirm = useMutation({
    mutationFn: () => alarmsApi.confirm(alarm.id, eid),
    onSuccess: async () => {
      Toast.show({ icon: "success", content: t("alarms.confirmed") });
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.alarmsAll }),
        queryClient.invalidateQueries({ queryKey: queryKeys.deviceAlarmsAll(alarm.machine_code) }),
      ]);
    },
  });
  const ask = async () => {
    const yes = await Dialog.confirm({
      title: t("alarms.confirmTitle"),
      content: t("alarms.confirmHint"),
      confirmText: <span data-testid="m-alarm-confirm-ok">{t("alarms.confirm")}</span>,
      cancelText: t("common.cancel"),
    });
    if (yes) confirm.mutate();
  };
  return (
    <List.Item
      data-testid={`m-alarm-${alarm.id}`}
      data-alarm-id={alarm.id}
      data-confirmed={alarm.confirmed}
      prefix={<AlarmLevelTag level={alarm.level} />}
      description={
        <span className="kwm-alarm-meta">
          {showDevice && <span>{alarm.machine_name}</span>}
          <span>{formatDateTime(alarm.time)}</span>
          {alarm.confirmed === 1 && (
            <Tag color="success" fill="outline" data-testid="m-alarm-confirmed">
              {t("alarms.states.confirmed")}
            </Tag>
          )}
          {alarm.cleared === 1 && (
            <Tag color="default" fill="outline">
              {t("alarms.states.cleared")}
            </Tag>
          )}
        </span>
      }
      extra={
        alarm.confirmed === 0 && canConfirm ? (
          <Button
            size="small"
            color="primary"
            fill="outline"
            loading={confirm.isPending}
            onClick={ask}
            data-testid="m-alarm-confirm"
          >
            {t("alarms.confirm")}
          </Button>
        ) : undefined
      }
    >
      <span className="kwm-alarm-content" data-testid="m-alarm-content">
        {alarm.content}
      </span>
    </List.Item>
  );
}
