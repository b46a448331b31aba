import { type AccessKind, HW, machineAddBody, type ScanCodeResult } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Form, Input } from "antd";
import { useEffect, useState } from "react";
import { accessApi } from "../../api/access.ts";
import { devicesApi, type MachineAddPayload } from "../../api/devices.ts";
import { ApiError } from "../../api/errors.ts";
import { useGroups } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { FormModal } from "../../components/FormModal.tsx";
import {
  CodeLookupNotice,
  MachineCodeItem,
  standingOf,
  useCodeLookup,
} from "../../features/device/codeLookup.tsx";
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
 * Add a personal device by machine code and device password (SPEC §1, §7 /machine/add). The
 * code is looked up as it is typed (scanCodeCheck): a device someone else owns is said at
 * once, with "Request to visit" / "Request to bind" instead of the password and name, which a
 * requester cannot know; so are the black list and a device already in the list. A submit
 * that still meets 04010112 (typed faster than the lookup) looks the code up the same way.
 */
export function AddDeviceModal(props: {
  open: boolean;
  onClose: () => void;
  groupId?: number;
  /** A code to start from (the request dialog's "nobody owns it yet"). */
  initialCode?: string;
  /** Someone else's device: the user chose to ask for a visit or a bind. */
  onRequest?: (device: ScanCodeResult, kind: AccessKind) => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(machineAddBody);
  const groups = useGroups(props.open);
  const add = useMutation({ mutationFn: devicesApi.add, meta: { silent: true } });
  const lookup = useCodeLookup(Form.useWatch("machineCode", form), props.open);
  // Someone else's device, the black list or one already listed: nothing to add here.
  const requester = lookup.status === "found" && lookup.standing !== "free";
  // Handing over to the request dialog: the focus stays there when this one has closed.
  const [handedOver, setHandedOver] = useState(false);
  useEffect(() => {
    if (props.open) setHandedOver(false);
  }, [props.open]);
  const onRequest =
    props.onRequest &&
    ((device: ScanCodeResult, kind: AccessKind) => {
      setHandedOver(true);
      props.onRequest?.(device, kind);
    });

  /** 04010112 on submit: the same lookup, into the cache the live lookup reads. */
  const lookUp = async (machineCode: string, error: ApiError) => {
    try {
      const device = await queryClient.fetchQuery({
        queryKey: queryKeys.scanCode(machineCode),
        queryFn: () => accessApi.scanCodeCheck(machineCode),
        staleTime: 0,
      });
      // Held by an enterprise without an Akey: nobody to ask; the add call's message stays.
      if (standingOf(device) === "free")
        form.setFields([{ name: "machineCode", errors: [error.message] }]);
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
      submitDisabled={requester}
      focusTriggerAfterClose={!handedOver}
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ machineGroupID: props.groupId ?? 0, machineCode: props.initialCode }}
        onFinish={async (values) => {
          // Enter in the code field of someone else's device: the alert's buttons decide.
          if (requester) return;
          const body = parseForm(machineAddBody, values);
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
        <MachineCodeItem
          rule={rule("machineCode")}
          lookup={lookup}
          testIdPrefix="device-add"
          autoFocus={!props.initialCode}
        />
        <CodeLookupNotice lookup={lookup} testIdPrefix="device-add" onRequest={onRequest} />
        {!requester && (
          <>
            <Form.Item name="machinePwd" label={t("device.password")} rules={[rule("machinePwd")]}>
              <Input.Password
                data-testid="device-add-password"
                placeholder={t("device.passwordPlaceholder")}
                autoComplete="new-password"
                autoFocus={Boolean(props.initialCode)}
              />
            </Form.Item>
            <Form.Item name="machineName" label={t("device.name")} rules={[rule("machineName")]}>
              <Input data-testid="device-add-name" placeholder={t("device.namePlaceholder")} />
            </Form.Item>
            <Form.Item
              name="machineGroupID"
              label={t("device.group")}
              rules={[rule("machineGroupID")]}
            >
              <GroupSelect
                data-testid="device-add-group"
                groups={groups.data?.list}
                loading={groups.isPending}
              />
            </Form.Item>
          </>
        )}
      </Form>
    </FormModal>
  );
}
