import { type AccessKind, type AccessRequestView, AUDIT_STATE } from "@keyway/shared";
import { Button, Result } from "antd-mobile";
import { useLang } from "../../i18n/index.ts";

export type Outcome =
  | { ok: true; request: AccessRequestView }
  | { ok: false; message: string; hwcode: string };

/** How a request ended: sent (with its number), granted at once, or the server's refusal. */
export function RequestOutcome({
  outcome,
  kind,
  onClose,
}: {
  outcome: Outcome;
  kind: AccessKind;
  onClose: () => void;
}) {
  const { t } = useLang();
  const granted = outcome?.ok && outcome.request.auditState === AUDIT_STATE.allPassed;
  return (
    <>
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
      <Button block onClick={onClose} data-testid="m-request-close">
        {t("common.close")}
      </Button>
    </>
  );
}
