import {
  type AccessKind,
  AUDIT_STATE,
  addBindBody,
  addVisitBody,
  checkMachinePwdBody,
  HW,
  type ScanCodeResult,
} from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, Form, NoticeBar, Popup } from "antd-mobile";
import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { accessApi } from "../../api/access.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { standingOf } from "../../features/device/codeLookup.tsx";
import { useLang } from "../../i18n/index.ts";
import { browserName, terminalUUID } from "../../lib/terminal.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { MOBILE } from "../../paths.ts";
import { RequestCodeForm } from "./RequestCodeForm.tsx";
import { RequestFacts } from "./RequestFacts.tsx";
import { RequestForm } from "./RequestForm.tsx";
import { type Outcome, RequestOutcome } from "./RequestOutcome.tsx";
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
  const passwordMode = device?.check_type === 1;
  // A device known by the caller (from its page) is asked for as before; a looked-up one
  // only when someone else owns it.
  const standing = device && !known ? standingOf(device) : "taken";
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
          <RequestCodeForm
            form={codeForm}
            loading={lookUp.isPending}
            error={lookupError}
            onLookUp={(machineCode) => {
              setLookupError(null);
              lookUp.mutate(machineCode);
            }}
          />
        )}
        {device && outcome && <RequestOutcome outcome={outcome} kind={kind} onClose={onClose} />}
        {device && !outcome && (
          <>
            <RequestFacts device={device} passwordMode={passwordMode} />
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
              <RequestForm
                form={form}
                kind={kind}
                onKind={setKind}
                passwordMode={passwordMode}
                rule={rule}
                sending={send.isPending}
                onFinish={submit}
              />
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
