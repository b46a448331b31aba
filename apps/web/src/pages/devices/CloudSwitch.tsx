import type { Machine } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Popconfirm, Switch, Tooltip } from "antd";
import { useState } from "react";
import { devicesApi } from "../../api/devices.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";

/**
 * The cloud service switch (POST /machine/machineCloudSwitchState). Only the Akey turns it
 * (others see it disabled with the reason); closing asks first, since it stops all remote access.
 */
export function CloudSwitch({ machine, isAkey }: { machine: Machine; isAkey: boolean }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const id = machine.machine_id;
  const on = machine.cloud_service === 1;

  const turn = useMutation({
    mutationFn: (state: 0 | 1) => devicesApi.cloudSwitch(id, state),
    onSuccess: async (result) => {
      queryClient.setQueryData<Machine>(queryKeys.deviceDetail(id), (old) =>
        old ? { ...old, cloud_service: result.cloud_service } : old,
      );
      message.success(
        result.cloud_service === 1 ? t("device.cloud.opened") : t("device.cloud.closed"),
      );
      await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
    },
  });

  const control = (
    <Switch
      checked={on}
      disabled={!isAkey}
      loading={turn.isPending}
      checkedChildren={t("device.cloud.on")}
      unCheckedChildren={t("device.cloud.off")}
      // Closing goes through the confirmation; opening is immediate.
      onChange={(next) => {
        if (next) turn.mutate(1);
      }}
      data-testid="device-cloud-switch"
      data-state={on ? "on" : "off"}
    />
  );

  if (!isAkey) {
    return (
      <Tooltip title={t("device.cloud.akeyOnly")}>
        <span className="kw-inline-block" data-testid="device-cloud-readonly">
          {control}
        </span>
      </Tooltip>
    );
  }
  return (
    <Popconfirm
      open={confirming}
      onOpenChange={(next) => setConfirming(next && on && !turn.isPending)}
      title={t("device.cloud.closeTitle")}
      description={<span className="kw-popconfirm-text">{t("device.cloud.closeConfirm")}</span>}
      okText={t("device.cloud.closeOk")}
      cancelText={t("common.cancel")}
      okButtonProps={{
        danger: true,
        ...({ "data-testid": "device-cloud-close-confirm" } as object),
      }}
      onConfirm={() => {
        setConfirming(false);
        turn.mutate(0);
      }}
    >
      {control}
    </Popconfirm>
  );
}
