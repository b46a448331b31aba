import { type AccessKind, HW, machineAddBody, type ScanCodeResult } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Alert, Button, Form, type FormRule, Input, Space } from "antd";
import { accessApi } from "../../api/access.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { useDebounced } from "../../lib/useDebounced.ts";

/** The machine code alone, by the shared rule of /machine/add (the add dialog's field). */
export const machineCodeForm = machineAddBody.pick({ machineCode: true });
const codeField = machineAddBody.shape.machineCode;

/**
 * Where the caller stands on a looked-up device:
 * - free: nobody owns it (no Akey): adding it with its password makes the caller its Akey;
 * - taken: someone else owns it: the caller may ask for a visit or a bind (no password);
 * - blacklisted: on its black list: may not ask (SPEC §6);
 * - mine: already in the caller's list as Akey, Bkey or ordinary user (a request is refused).
 */
export type Standing = "free" | "taken" | "blacklisted" | "mine";

export function standingOf(device: ScanCodeResult): Standing {
  if (device.role === "akey" || device.role === "bkey" || device.role === "user") return "mine";
  if (device.blacklisted) return "blacklisted";
  return device.has_akey ? "taken" : "free";
}

export type CodeLookup =
  | { status: "idle" }
  | { status: "checking"; code: string }
  | { status: "failed"; code: string; message: string; hwcode: string }
  | { status: "found"; code: string; device: ScanCodeResult; standing: Standing };

/**
 * Looks a machine code up as it is typed (POST /v1/cloudSet/scanCodeCheck): only a code the
 * shared rule accepts, once it has stopped changing (SPEC §9 debounce). A code looked up
 * before (or by the add dialog's fallback) answers from the cache at once.
 */
export function useCodeLookup(raw: unknown, enabled: boolean): CodeLookup {
  const { t } = useLang();
  const parsed = codeField.safeParse(typeof raw === "string" ? raw : "");
  const current = parsed.success ? parsed.data : null;
  const settled = useDebounced(current);
  const query = useQuery({
    queryKey: queryKeys.scanCode(current ?? ""),
    queryFn: () => accessApi.scanCodeCheck(current ?? ""),
    enabled: enabled && current !== null && settled === current,
    meta: { silent: true },
    // The caller's standing changes with answers and black-listing: always asked again.
    staleTime: 0,
  });
  if (!enabled || current === null) return { status: "idle" };
  if (query.data)
    return {
      status: "found",
      code: current,
      device: query.data,
      standing: standingOf(query.data),
    };
  if (query.isFetching) return { status: "checking", code: current };
  if (query.error) {
    const error = query.error;
    // The session handler already told the user and is logging out.
    if (error instanceof ApiError && error.kind === "session") return { status: "idle" };
    const notFound = error instanceof ApiError && error.is(HW.MACHINE_CODE_NOT_FOUND.code);
    return {
      status: "failed",
      code: current,
      message: notFound ? t("access.lookup.notFound") : error.message,
      hwcode: error instanceof ApiError ? String(error.hwcode ?? "") : "",
    };
  }
  return { status: "idle" };
}

/**
 * The machine code field of the add and request dialogs: the shared rule, then the lookup's
 * state under it (checking, or why the code cannot be used).
 */
export function MachineCodeItem({
  rule,
  lookup,
  testIdPrefix,
  autoFocus = true,
}: {
  rule: FormRule;
  lookup: CodeLookup;
  testIdPrefix: string;
  autoFocus?: boolean;
}) {
  const { t } = useLang();
  const status =
    lookup.status === "checking"
      ? {
          validateStatus: "validating" as const,
          hasFeedback: true,
          help: (
            <span data-testid={`${testIdPrefix}-lookup-checking`}>
              {t("access.lookup.checking")}
            </span>
          ),
        }
      : lookup.status === "failed"
        ? {
            validateStatus: "error" as const,
            help: (
              <span data-testid={`${testIdPrefix}-lookup-error`} data-hwcode={lookup.hwcode}>
                {lookup.message}
              </span>
            ),
          }
        : {};
  return (
    <Form.Item
      name="machineCode"
      label={t("device.code")}
      rules={[rule]}
      extra={t("device.codeHint")}
      {...status}
    >
      <Input
        data-testid={`${testIdPrefix}-code`}
        placeholder={t("device.codePlaceholder")}
        // An empty suffix keeps the input's markup when the lookup's icon comes and goes:
        // antd would otherwise make a new, autofocused input, taking the focus from the
        // field the user has moved on to (the password, half typed).
        suffix={<span />}
        autoFocus={autoFocus}
        autoComplete="off"
        className="kw-code-input"
      />
    </Form.Item>
  );
}

/** "Request to visit" / "Request to bind" for a device someone else owns. */
export function RequestButtons({
  device,
  onRequest,
  testIdPrefix,
  size,
  primaryLast = false,
}: {
  device: ScanCodeResult;
  onRequest: (device: ScanCodeResult, kind: AccessKind) => void;
  testIdPrefix: string;
  size?: "small" | "middle";
  /** In a dialog's footer the primary button ends the row. */
  primaryLast?: boolean;
}) {
  const { t } = useLang();
  const visit = (
    <Button
      key="visit"
      size={size}
      type="primary"
      onClick={() => onRequest(device, "visit")}
      data-testid={`${testIdPrefix}-request-visit`}
    >
      {t("access.requestVisit")}
    </Button>
  );
  const bind = (
    <Button
      key="bind"
      size={size}
      onClick={() => onRequest(device, "bind")}
      data-testid={`${testIdPrefix}-request-bind`}
    >
      {t("access.requestBind")}
    </Button>
  );
  return <Space wrap>{primaryLast ? [bind, visit] : [visit, bind]}</Space>;
}

/**
 * What a looked-up code means for the caller, as soon as it is known: someone else's device
 * (with the request buttons when `onRequest` is given), the black list, a device already in
 * the list, or (with `onAdd`) a device nobody owns yet. `${testIdPrefix}-taken` carries
 * `data-standing`; a free device is `${testIdPrefix}-free`.
 */
export function CodeLookupNotice({
  lookup,
  testIdPrefix,
  onRequest,
  onAdd,
}: {
  lookup: CodeLookup;
  testIdPrefix: string;
  onRequest?: (device: ScanCodeResult, kind: AccessKind) => void;
  onAdd?: (code: string) => void;
}) {
  const { t } = useLang();
  if (lookup.status !== "found") return null;
  const { device, standing } = lookup;
  const identity =
    device.role === "none"
      ? undefined
      : t("access.takenIdentity", { identity: t(`device.identity.${device.role}`) });
  if (standing === "free") {
    if (!onAdd) return null;
    return (
      <Alert
        type="info"
        showIcon
        className="kw-mb"
        title={t("access.lookup.freeTitle")}
        description={
          <>
            <div className="kw-mb-xs">{t("access.lookup.freeHint")}</div>
            <Button
              size="small"
              type="primary"
              onClick={() => onAdd(device.machine_code)}
              data-testid={`${testIdPrefix}-add`}
            >
              {t("device.add")}
            </Button>
          </>
        }
        data-testid={`${testIdPrefix}-free`}
      />
    );
  }
  const text = {
    taken: {
      type: "warning" as const,
      title: t("access.lookup.takenTitle"),
      hint: identity ?? t("access.takenHint"),
    },
    blacklisted: {
      type: "error" as const,
      title: t("access.lookup.blacklistedTitle"),
      hint: t("access.request.blacklisted"),
    },
    mine: { type: "info" as const, title: t("access.lookup.mineTitle"), hint: identity },
  }[standing];
  return (
    <Alert
      type={text.type}
      showIcon
      className="kw-mb"
      title={text.title}
      description={
        <>
          <div className={standing === "taken" && onRequest ? "kw-mb-xs" : undefined}>
            {text.hint}
          </div>
          {standing === "taken" && onRequest && (
            <RequestButtons
              device={device}
              onRequest={onRequest}
              testIdPrefix={testIdPrefix}
              size="small"
            />
          )}
        </>
      }
      data-testid={`${testIdPrefix}-taken`}
      data-standing={standing}
    />
  );
}
