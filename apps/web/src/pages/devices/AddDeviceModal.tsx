import { type AccessKind, HW, machineAddBody, type ScanCodeResult } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, App, Button, Form, Input, Space } from "antd";
import { useEffect, useState } from "react";
import { accessApi } from "../../api/access.ts";
import { devicesApi, type MachineAddPayload } from "../../api/devices.ts";
import { ApiError } from "../../api/errors.ts";
import { useGroups } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { GroupSelect } from "./GroupSelect.tsx";

/** Business codes of POST /machine/add that belong to one field of the form. */
const FIELD_OF_CODE: Record<string, keyof MachineAddPayload> = {
  "04010112": "machineCode",
  "04010102": "machineCode",
  "04010103": "machinePwd",
  "04011101": "machineGroupID",
};

/**
 * Add a personal device by machine code and device password (SPEC §1, §7 /machine/add). A
 * device that already has an Akey (04010112) is looked up (scanCodeCheck) and the dialog
 * offers to ask its owner for a visit or a bind instead.
 */
export function AddDeviceModal(props: {
  open: boolean;
  onClose: () => void;
  groupId?: number;
  /** "Already added": the user chose to ask for a visit or a bind. */
  onRequest?: (device: ScanCodeResult, kind: AccessKind) => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(machineAddBody);
  const groups = useGroups(props.open);
  const add = useMutation({ mutationFn: devicesApi.add, meta: { silent: true } });
  const [taken, setTaken] = useState<{ device: ScanCodeResult; message: string } | null>(null);

  useEffect(() => {
    if (!props.open) setTaken(null);
  }, [props.open]);

  const lookUp = async (machineCode: string, error: ApiError) => {
    try {
      const device = await accessApi.scanCodeCheck(machineCode);
      setTaken({ device, message: error.message });
    } catch (lookupError) {
      form.setFields([{ name: "machineCode", errors: [error.message] }]);
      showError(lookupError);
    }
  };

  return (
    <FormModal
      title={t("device.addTitle")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={add.isPending}
      submitTestId="device-add-submit"
      submitText={t("device.add")}
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ machineGroupID: props.groupId ?? 0 }}
        onValuesChange={(changed) => {
          if ("machineCode" in changed) setTaken(null);
        }}
        onFinish={async (values) => {
          const body = parseForm(machineAddBody, values);
          setTaken(null);
          try {
            await add.mutateAsync({ ...body, machineGroupID: body.machineGroupID || undefined });
          } catch (error) {
            if (error instanceof ApiError && error.is(HW.DEVICE_ALREADY_ADDED.code)) {
              await lookUp(body.machineCode, error);
              return;
            }
            const field =
              error instanceof ApiError && error.hwcode !== null
                ? FIELD_OF_CODE[String(error.hwcode)]
                : undefined;
            if (field) form.setFields([{ name: field, errors: [(error as ApiError).message] }]);
            else showError(error);
            return;
          }
          message.success(t("device.added", { name: body.machineName }));
          await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
          props.onClose();
        }}
      >
        <Form.Item
          name="machineCode"
          label={t("device.code")}
          rules={[rule("machineCode")]}
          extra={t("device.codeHint")}
        >
          <Input
            data-testid="device-add-code"
            placeholder={t("device.codePlaceholder")}
            autoFocus
            autoComplete="off"
            className="kw-code-input"
          />
        </Form.Item>
        {taken && (
          <Alert
            type="warning"
            showIcon
            className="kw-mb"
            title={taken.message}
            description={
              <>
                <div className="kw-mb-xs">
                  {taken.device.blacklisted
                    ? t("access.request.blacklisted")
                    : taken.device.role !== "none"
                      ? t("access.takenIdentity", {
                          identity: t(`device.identity.${taken.device.role}`),
                        })
                      : t("access.takenHint")}
                </div>
                <Space wrap>
                  <Button
                    size="small"
                    type="primary"
                    onClick={() => props.onRequest?.(taken.device, "visit")}
                    data-testid="device-add-request-visit"
                  >
                    {t("access.requestVisit")}
                  </Button>
                  <Button
                    size="small"
                    onClick={() => props.onRequest?.(taken.device, "bind")}
                    data-testid="device-add-request-bind"
                  >
                    {t("access.requestBind")}
                  </Button>
                </Space>
              </>
            }
            data-testid="device-add-taken"
          />
        )}
        <Form.Item name="machinePwd" label={t("device.password")} rules={[rule("machinePwd")]}>
          <Input.Password
            data-testid="device-add-password"
            placeholder={t("device.passwordPlaceholder")}
            autoComplete="new-password"
          />
        </Form.Item>
        <Form.Item name="machineName" label={t("device.name")} rules={[rule("machineName")]}>
          <Input data-testid="device-add-name" placeholder={t("device.namePlaceholder")} />
        </Form.Item>
        <Form.Item name="machineGroupID" label={t("device.group")} rules={[rule("machineGroupID")]}>
          <GroupSelect
            data-testid="device-add-group"
            groups={groups.data?.list}
            loading={groups.isPending}
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
