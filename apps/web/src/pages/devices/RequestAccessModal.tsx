import {
  type AccessKind,
  type AccessRequestView,
  AUDIT_STATE,
  addBindBody,
  addVisitBody,
  checkMachinePwdBody,
  HW,
  LIMITS,
  type ScanCodeResult,
} from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Descriptions, Form, Input, Modal, Result } from "antd";
import { useState } from "react";
import { type AccessRequestPayload, accessApi } from "../../api/access.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { browserName, terminalUUID } from "../../lib/terminal.ts";
import { parseForm, useZodRule, zodValueRule } from "../../lib/zodRule.tsx";

export interface AccessTarget {
  device: ScanCodeResult;
  kind: AccessKind;
}

const visitForm = addVisitBody.pick({ message: true, password: true });
const bindForm = addBindBody.pick({ remarks: true, message: true, password: true });
/** Akey+password mode: the device password is required (the same field as checkMachinePwd). */
const passwordRule = zodValueRule<string | undefined>(
  checkMachinePwdBody.shape.machinePwd,
  (value) => value ?? "",
);

type Outcome =
  | { ok: true; request: AccessRequestView }
  | { ok: false; message: string; hwcode: string };

/**
 * Ask to visit or to be bound to a device someone else owns (POST /v1/audit/addVisit,
 * /addBind) with a leave message (≤ 15 characters); in Akey+password mode the device
 * password, which grants access at once. Every outcome is shown: sent (with the request
 * number for the audit query), granted, or the server's message (black list, already
 * administrator / user / bound, cloud expired, too frequent, wrong password).
 */
export function RequestAccessModal({
  target,
  onClose,
}: {
  target: AccessTarget | null;
  onClose: () => void;
}) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const kind = target?.kind ?? "visit";
  const device = target?.device;
  const passwordMode = device?.check_type === 1;
  const schema = kind === "visit" ? visitForm : bindForm;
  const rule = useZodRule(schema);
  const send = useMutation({
    mutationFn: (body: AccessRequestPayload) => accessApi.request(kind, body),
    meta: { silent: true },
  });

  const submit = async (values: Record<string, unknown>) => {
    if (!device) return;
    const body: { message: string; password?: string; remarks?: string } = parseForm(
      schema,
      values,
    );
    try {
      const request = await send.mutateAsync({
        machineID: device.machine_id,
        message: body.message,
        password: passwordMode ? body.password : undefined,
        remarks: kind === "bind" ? body.remarks : undefined,
        terminalID: kind === "visit" ? terminalUUID() : undefined,
        terminalName: kind === "visit" ? browserName() : undefined,
      });
      setOutcome({ ok: true, request });
      await queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
      if (request.auditState === AUDIT_STATE.allPassed) {
        await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.is(HW.VISIT_PASSWORD_ERROR.code)) {
        form.setFields([{ name: "password", errors: [error.message] }]);
        return;
      }
      if (error.kind === "session") return;
      setOutcome({ ok: false, message: error.message, hwcode: String(error.hwcode ?? "") });
    }
  };

  const title = kind === "visit" ? t("access.request.visitTitle") : t("access.request.bindTitle");
  const footer = outcome
    ? [
        ...(outcome.ok
          ? []
          : [
              <Button key="back" onClick={() => setOutcome(null)} data-testid="request-back">
                {t("common.back")}
              </Button>,
            ]),
        <Button key="close" type="primary" onClick={onClose} data-testid="request-close">
          {t("common.close")}
        </Button>,
      ]
    : [
        <Button key="cancel" onClick={onClose} disabled={send.isPending}>
          {t("common.cancel")}
        </Button>,
        <Button
          key="submit"
          type="primary"
          loading={send.isPending}
          onClick={() => form.submit()}
          data-testid="request-submit"
        >
          {passwordMode ? t("access.request.submitPassword") : t("access.request.submit")}
        </Button>,
      ];

  return (
    <Modal
      title={title}
      open={target !== null}
      onCancel={onClose}
      afterClose={() => setOutcome(null)}
      destroyOnHidden
      mask={{ closable: !send.isPending }}
      footer={footer}
    >
      <div data-testid="request-dialog">
        {device && (
          <Descriptions
            column={1}
            size="small"
            className="kw-mb"
            items={[
              {
                key: "code",
                label: t("device.code"),
                children: <MachineCode code={device.machine_code} />,
              },
              {
                key: "mode",
                label: t("access.request.mode"),
                children: passwordMode ? t("authority.modePassword") : t("authority.modeApproval"),
              },
            ]}
          />
        )}
        {outcome ? (
          <OutcomeView outcome={outcome} kind={kind} />
        ) : (
          <Form
            form={form}
            layout="vertical"
            requiredMark={false}
            preserve={false}
            initialValues={{ message: "", remarks: "" }}
            onFinish={submit}
          >
            {device?.blacklisted && (
              <Alert
                type="error"
                showIcon
                className="kw-mb"
                title={t("access.request.blacklisted")}
              />
            )}
            <Alert
              type="info"
              showIcon
              className="kw-mb"
              title={
                passwordMode ? t("access.request.passwordHint") : t("access.request.approvalHint")
              }
            />
            {kind === "bind" && (
              <Form.Item name="remarks" label={t("device.remark")} rules={[rule("remarks")]}>
                <Input placeholder={t("device.remarkPlaceholder")} data-testid="request-remarks" />
              </Form.Item>
            )}
            <Form.Item name="message" label={t("access.request.message")} rules={[rule("message")]}>
              <Input
                placeholder={t("access.messagePlaceholder")}
                // Typing stops at the SPEC §5 limit; the shared rule still refuses a longer value.
                maxLength={LIMITS.visitMessage.max}
                showCount
                autoFocus
                data-testid="request-message"
              />
            </Form.Item>
            {passwordMode && (
              <Form.Item name="password" label={t("device.password")} rules={[passwordRule]}>
                <Input.Password
                  placeholder={t("device.passwordPlaceholder")}
                  autoComplete="new-password"
                  data-testid="request-password"
                />
              </Form.Item>
            )}
          </Form>
        )}
      </div>
    </Modal>
  );
}

function OutcomeView({ outcome, kind }: { outcome: Outcome; kind: AccessKind }) {
  const { t } = useLang();
  if (!outcome.ok) {
    return (
      <Result
        status="warning"
        title={outcome.message}
        data-testid="request-result"
        data-outcome="refused"
        data-hwcode={outcome.hwcode}
      />
    );
  }
  const granted = outcome.request.auditState === AUDIT_STATE.allPassed;
  return (
    <Result
      status="success"
      title={
        granted
          ? kind === "visit"
            ? t("access.request.grantedVisit")
            : t("access.request.grantedBind")
          : t("access.request.sent")
      }
      subTitle={granted ? undefined : t("access.request.sentHint", { no: outcome.request.id })}
      data-testid="request-result"
      data-outcome={granted ? "granted" : "sent"}
      data-request-id={outcome.request.id}
    />
  );
}
