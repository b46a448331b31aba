import type { Machine } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Typography } from "antd";
import { devicesApi } from "../../api/devices.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

/**
 * Delete, confirmed first with what it means for the caller (the Akey's warning differs);
 * `onDeleted` runs before the lists are read again.
 */
export function useDeleteDevice(onDeleted: (machine: Machine) => void) {
  const { t } = useLang();
  const { modal, message } = App.useApp();
  const queryClient = useQueryClient();
  const remove = useMutation({ mutationFn: devicesApi.remove });
  return (machine: Machine) => {
    const akey = machine.limit_authority === 3;
    modal.confirm({
      title: t("device.deleteTitle", { name: machine.machine_name || machine.machine_code }),
      content: (
        <Typography.Paragraph className="kw-mb0" data-testid="device-delete-warning">
          {akey ? t("device.deleteAkeyWarning") : t("device.deleteWarning")}
        </Typography.Paragraph>
      ),
      okText: t("common.delete"),
      cancelText: t("common.cancel"),
      okButtonProps: { danger: true, ...testId("device-delete-confirm") },
      onOk: async () => {
        try {
          await remove.mutateAsync(machine);
        } catch {
          return;
        }
        message.success(t("device.deleted"));
        onDeleted(machine);
        await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
      },
    });
  };
}
