import { HW, LIMITS, type Machine, machineUpdateBody } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Form, Input } from "antd";
import { devicesApi } from "../../api/devices.ts";
import { ApiError } from "../../api/errors.ts";
import { useGroups } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { GroupSelect } from "./GroupSelect.tsx";

const editForm = machineUpdateBody.omit({ updateMachineID: true, updateMachineCode: true });

/**
 * SPEC §8 edit failures that mean the row on screen is stale (gone from the list, or not the
 * device its code says): each shows its own message, then the list is reloaded.
 */
const STALE_ROW_CODES = [
  HW.EDIT_MACHINE_NOT_FOUND.code,
  HW.EDIT_MACHINE_CODE_EXISTS.code,
  HW.EDIT_MACHINE_FAILED.code,
];

/** Name, alias, remark (≤ 50) and group of a personal device (POST /machine/update). */
export function EditDeviceModal(props: { machine: Machine | null; onClose: () => void }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(editForm);
  const open = props.machine !== null;
  const groups = useGroups(open);
  const update = useMutation({ mutationFn: devicesApi.update, meta: { silent: true } });
  const machine = props.machine;

  return (
    <FormModal
      title={t("device.editTitle")}
      open={open}
      onClose={props.onClose}
      form={form}
      submitting={update.isPending}
      submitTestId="device-edit-submit"
    >
      {machine && (
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          preserve={false}
          initialValues={{
            updateMachineName: machine.machine_name,
            updateMachineAlias: machine.alias,
            updateMachineRemark: machine.machine_remark,
            updateMachineGroupID: machine.groups ?? 0,
          }}
          onFinish={async (values) => {
            const body = parseForm(editForm, values);
            try {
              await update.mutateAsync({
                ...body,
                updateMachineID: machine.machine_id,
                // The server checks it names this device (SPEC §8 04010406 / 040104011).
                updateMachineCode: machine.machine_code,
                updateMachineGroupID: body.updateMachineGroupID ?? 0,
              });
            } catch (error) {
              showError(error);
              if (error instanceof ApiError && STALE_ROW_CODES.some((code) => error.is(code))) {
                await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
                props.onClose();
              }
              return;
            }
            message.success(t("device.saved"));
            await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
            props.onClose();
          }}
        >
          <Form.Item label={t("device.code")}>
            <Input value={machine.machine_code} disabled className="kw-code-input" />
          </Form.Item>
          <Form.Item
            name="updateMachineName"
            label={t("device.name")}
            rules={[rule("updateMachineName")]}
          >
            <Input data-testid="device-edit-name" placeholder={t("device.namePlaceholder")} />
          </Form.Item>
          <Form.Item
            name="updateMachineAlias"
            label={t("device.alias")}
            rules={[rule("updateMachineAlias")]}
          >
            <Input data-testid="device-edit-alias" placeholder={t("device.aliasPlaceholder")} />
          </Form.Item>
          <Form.Item
            name="updateMachineRemark"
            label={t("device.remark")}
            rules={[rule("updateMachineRemark")]}
          >
            <Input.TextArea
              data-testid="device-edit-remark"
              placeholder={t("device.remarkPlaceholder")}
              showCount={{ formatter: ({ count }) => `${count} / ${LIMITS.remark.max}` }}
              autoSize={{ minRows: 2, maxRows: 4 }}
            />
          </Form.Item>
          <Form.Item
            name="updateMachineGroupID"
            label={t("device.group")}
            rules={[rule("updateMachineGroupID")]}
          >
            <GroupSelect
              data-testid="device-edit-group"
              groups={groups.data?.list}
              loading={groups.isPending}
            />
          </Form.Item>
        </Form>
      )}
    </FormModal>
  );
}
