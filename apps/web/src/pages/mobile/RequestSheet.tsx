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
import { Button, Form, Input, NoticeBar, Popup, Result, Selector } from "antd-mobile";
import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { accessApi } from "../../api/access.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { browserName, terminalUUID } from "../../lib/terminal.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { MOBILE } from "../../paths.ts";
import { machineCodeForm, standingOf } from "../devices/codeLookup.tsx";
import { useMobileZodRule } from "./zodRule.ts";

const visitBase = addVisitBody.pick({ message: true });
const bindBase = addBindBody.pick({ remarks: true, message: true });
const SCHEMAS = {
  visit: visitBase,
  bind: bindBase,
  /** Akey+password mode: the device password is required (checkMachinePwd's field). */
  visitPassword: visitBase.extend({ password: checkMachinePwdBody.shape.machinePwd }),
  bindPassword: bindBase.extend({ password: checkMachinePwdBody.shape.machinePwd }),
};

type Outcome =
  | { ok: true; request: AccessRequestView }
  | { ok: false; message: string; hwcode: string };

/**
 * Ask to visit or to be bound to a device (POST /v1/audit/addVisit, /addBind — the desktop's
 * calls) from the phone: by machine code alone (the shared code rule, then scanCodeCheck; no
 * device password) or for a device already known (`device`); a leave message (≤ 15
 * characters, typing stops there), a remark for binds, the device password only in
 * Akey+password mode. A looked-up code that cannot be asked for says why at once (unknown
 * code, black list, already in the list, nobody owns it yet) like the desktop's dialogs.
 * Every outcome is told: sent with the request number, granted, or the server's refusal.
 */
export function RequestSheet({
  visible,
  onClose,
  device: known,
  initialKind = "visit",
}: {
  visible: boolean;
  onClose: () => void;
  device?: ScanCodeResult;
  initialKind?: AccessKind;
}) {
  const { t } = useLang();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [device, setDevice] = useState<ScanCodeResult | undefined>(known);
  const [kind, setKind] = useState<AccessKind>(initialKind);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [lookupError, setLookupError] = useState<string | null>(null);
  const [codeForm] = Form.useForm<{ machineCode: string }>();
  const [form] = Form.useForm();
  const codeRule = useMobileZodRule(machineCodeForm);
  const passwordMode = device?.check_type === 1;
  // A device known by the caller (from its page) is asked for as before; a looked-up one
  // only when someone else owns it.
  const standing = device && !known ? standingOf(device) : "taken";
  const messageLength = String(Form.useWatch("message", form) ?? "").length;
  const schema =
    SCHEMAS[passwordMode ? (kind === "visit" ? "visitPassword" : "bindPassword") : kind];
  const rule = useMobileZodRule(schema);

  useEffect(() => {
    if (visible) {
      setDevice(known);
      setKind(initialKind);
      setOutcome(null);
      setLookupError(null);
    }
  }, [visible, known, initialKind]);

  const lookUp = useMutation({
    mutationFn: (machineCode: string) => accessApi.scanCodeCheck(machineCode),
    meta: { silent: true },
    onSuccess: (found) => setDevice(found),
    onError: (error) => {
      if (error instanceof ApiError && error.kind === "session") return;
      setLookupError(
        error instanceof ApiError && error.is(HW.MACHINE_CODE_NOT_FOUND.code)
          ? t("access.lookup.notFound")
          : error.message,
      );
    },
  });
  const send = useMutation({
    mutationFn: (body: Parameters<typeof accessApi.request>[1]) => accessApi.request(kind, body),
    meta: { silent: true },
  });

  const submit = async (values: Record<string, unknown>) => {
    if (!device) return;
    const body = parseForm(schema, values) as {
      message: string;
      remarks?: string;
      password?: string;
    };
    try {
      const request = await send.mutateAsync({
        machineID: device.machine_id,
        message: body.message,
        password: passwordMode ? body.password : undefined,
        remarks: kind === "bind" ? (body.remarks ?? "") : undefined,
        terminalID: kind === "visit" ? terminalUUID() : undefined,
        terminalName: kind === "visit" ? browserName() : undefined,
      });
      setOutcome({ ok: true, request });
      await queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
      if (request.auditState === AUDIT_STATE.allPassed)
        await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
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

  const granted = outcome?.ok && outcome.request.auditState === AUDIT_STATE.allPassed;
  return (
    <Popup
      visible={visible}
      onMaskClick={onClose}
      onClose={onClose}
      destroyOnClose
      bodyClassName="kwm-sheet"
    >
      <div data-testid="m-request">
        <h2 className="kwm-sheet-title">{t("m.request.title")}</h2>
        {!device && (
          <Form
            form={codeForm}
            layout="vertical"
            onFinish={(v) => {
              setLookupError(null);
              lookUp.mutate(parseForm(machineCodeForm, v).machineCode);
            }}
            footer={
              <Button
                block
                color="primary"
                type="submit"
                loading={lookUp.isPending}
                data-testid="m-request-lookup"
              >
                {t("m.request.lookUp")}
              </Button>
            }
          >
            <Form.Item
              name="machineCode"
              label={t("device.code")}
              rules={[codeRule("machineCode")]}
            >
              <Input placeholder={t("device.codePlaceholder")} data-testid="m-request-code" />
            </Form.Item>
            {lookupError && (
              <div className="kwm-form-error" role="alert" data-testid="m-request-lookup-error">
                {lookupError}
              </div>
            )}
          </Form>
        )}
        {device && outcome && (
          <Result
            status={outcome.ok ? "success" : "warning"}
            title={
              outcome.ok
                ? granted
                  ? kind === "visit"
                    ? t("access.request.grantedVisit")
                    : t("access.request.grantedBind")
                  : t("access.request.sent")
                : outcome.message
            }
            description={
              outcome.ok && !granted
                ? t("access.request.sentHint", { no: outcome.request.id })
                : undefined
            }
            data-testid="m-request-result"
            data-outcome={outcome.ok ? (granted ? "granted" : "sent") : "refused"}
            data-request-id={outcome.ok ? outcome.request.id : undefined}
          />
        )}
        {device && outcome && (
          <Button block onClick={onClose} data-testid="m-request-close">
            {t("common.close")}
          </Button>
        )}
        {device && !outcome && (
          <>
            <div className="kwm-facts">
              <div>
                <span>{t("device.code")}</span>
                <b data-testid="m-request-device">{device.machine_code}</b>
              </div>
              <div>
                <span>{t("access.request.mode")}</span>
                <b>{passwordMode ? t("authority.modePassword") : t("authority.modeApproval")}</b>
              </div>
              {device.role !== "none" && (
                <div>
                  <span>{t("device.identityLabel")}</span>
                  <b>{t(`device.identity.${device.role}`)}</b>
                </div>
              )}
            </div>
            {device.blacklisted && (
              <NoticeBar
                color="error"
                wrap
                content={t("access.request.blacklisted")}
                data-testid="m-request-blacklisted"
              />
            )}
            {!device.has_akey && (
              <NoticeBar
                color="alert"
                wrap
                content={t("m.request.noOwner")}
                data-testid="m-request-no-owner"
              />
            )}
            {standing === "mine" && (
              <>
                <NoticeBar
                  color="info"
                  wrap
                  content={t("access.lookup.mineTitle")}
                  data-testid="m-request-mine"
                />
                <Button
                  block
                  color="primary"
                  className="kwm-mt"
                  onClick={() => {
                    onClose();
                    navigate(`${MOBILE.device}/${device.machine_id}`);
                  }}
                  data-testid="m-request-open-device"
                >
                  {t("m.request.openDevice")}
                </Button>
              </>
            )}
            {standing === "taken" && (
              <>
                <Selector
                  columns={2}
                  value={[kind]}
                  onChange={(v) => v[0] && setKind(v[0])}
                  options={[
                    { label: t("access.requestVisit"), value: "visit" as const },
                    { label: t("access.requestBind"), value: "bind" as const },
                  ]}
                  data-testid="m-request-kind"
                />
                <p className="kwm-hint">
                  {passwordMode
                    ? t("access.request.passwordHint")
                    : t("access.request.approvalHint")}
                </p>
                <Form
                  form={form}
                  key={kind}
                  layout="vertical"
                  initialValues={{ message: "", remarks: "" }}
                  onFinish={submit}
                  footer={
                    <Button
                      block
                      color="primary"
                      type="submit"
                      loading={send.isPending}
                      data-testid="m-request-submit"
                    >
                      {passwordMode
                        ? t("access.request.submitPassword")
                        : t("access.request.submit")}
                    </Button>
                  }
                >
                  {kind === "bind" && (
                    <Form.Item name="remarks" label={t("device.remark")} rules={[rule("remarks")]}>
                      <Input
                        placeholder={t("device.remarkPlaceholder")}
                        data-testid="m-request-remarks"
                      />
                    </Form.Item>
                  )}
                  <Form.Item
                    name="message"
                    label={t("access.request.message")}
                    rules={[rule("message")]}
                    extra={
                      <span className="kwm-hint" data-testid="m-request-message-count">
                        {messageLength} / {LIMITS.visitMessage.max}
                      </span>
                    }
                  >
                    <Input
                      placeholder={t("access.messagePlaceholder")}
                      // Typing stops at the SPEC §5 limit; the shared rule still checks it.
                      maxLength={LIMITS.visitMessage.max}
                      data-testid="m-request-message"
                    />
                  </Form.Item>
                  {passwordMode && (
                    <Form.Item
                      name="password"
                      label={t("device.password")}
                      rules={[rule("password")]}
                    >
                      <Input
                        type="password"
                        placeholder={t("device.passwordPlaceholder")}
                        data-testid="m-request-password"
                      />
                    </Form.Item>
                  )}
                </Form>
              </>
            )}
            {!known && (
              <Button
                block
                fill="none"
                className="kwm-mt"
                onClick={() => {
                  setDevice(undefined);
                  setLookupError(null);
                }}
                data-testid="m-request-other-code"
              >
                {t("m.request.otherCode")}
              </Button>
            )}
          </>
        )}
      </div>
    </Popup>
  );
}
