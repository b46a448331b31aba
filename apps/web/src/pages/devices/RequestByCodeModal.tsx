import type { AccessKind, ScanCodeResult } from "@keyway/shared";
import { Button, Form, Modal, Space, Typography } from "antd";
import { useEffect, useState } from "react";
import {
  CodeLookupNotice,
  MachineCodeItem,
  machineCodeForm,
  RequestButtons,
  useCodeLookup,
} from "../../features/device/codeLookup.tsx";
import { useLang } from "../../i18n/index.ts";
import { useZodRule } from "../../lib/zodRule.tsx";

/**
 * "Request access" on the device list: a machine code alone, looked up as it is typed (the
 * add dialog's field and lookup), then the visit or bind request (RequestAccessModal). No
 * device password and no name: the owner (Akey) and administrators (Bkey) decide. A device
 * nobody owns yet leads to the add dialog with the code filled in.
 */
export function RequestByCodeModal({
  open,
  onClose,
  onRequest,
  onAdd,
}: {
  open: boolean;
  onClose: () => void;
  onRequest: (device: ScanCodeResult, kind: AccessKind) => void;
  onAdd: (code: string) => void;
}) {
  const { t } = useLang();
  const [form] = Form.useForm();
  const rule = useZodRule(machineCodeForm);
  const lookup = useCodeLookup(Form.useWatch("machineCode", form), open);
  const requestable = lookup.status === "found" && lookup.standing === "taken";
  // Handing over to the request or add dialog: the focus stays there once this one has closed.
  const [handedOver, setHandedOver] = useState(false);
  useEffect(() => {
    if (open) setHandedOver(false);
  }, [open]);
  const request = (device: ScanCodeResult, kind: AccessKind) => {
    setHandedOver(true);
    onRequest(device, kind);
  };
  const add = (code: string) => {
    setHandedOver(true);
    onAdd(code);
  };

  return (
    <Modal
      title={t("access.byCode.title")}
      open={open}
      onCancel={onClose}
      destroyOnHidden
      focusTriggerAfterClose={!handedOver}
      footer={
        <Space wrap>
          <Button onClick={onClose} data-testid="request-code-cancel">
            {t("common.cancel")}
          </Button>
          {requestable && (
            <RequestButtons
              device={lookup.device}
              onRequest={request}
              testIdPrefix="request-code"
              primaryLast
            />
          )}
        </Space>
      }
    >
      <div data-testid="request-code-dialog">
        <Typography.Paragraph type="secondary">{t("access.byCode.intro")}</Typography.Paragraph>
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          preserve={false}
          onFinish={() => {
            if (requestable) request(lookup.device, "visit");
          }}
        >
          <MachineCodeItem rule={rule("machineCode")} lookup={lookup} testIdPrefix="request-code" />
        </Form>
        <CodeLookupNotice lookup={lookup} testIdPrefix="request-code" onAdd={add} />
      </div>
    </Modal>
  );
}
