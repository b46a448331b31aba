import { isFinalAuditState, type MessageBox } from "@keyway/shared";
import { Button, Popup } from "antd-mobile";
import { useMessageDetail } from "../../features/message/useMessageDetail.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { auditStateKey } from "../msgCenter/audit.tsx";
import { ReplyForm } from "./ReplyForm.tsx";

/** One message opened from the list: its facts, and the approver's reply to an open request. */
export function MessageSheet({
  id,
  box,
  onClose,
}: {
  id: number | null;
  box: MessageBox;
  onClose: () => void;
}) {
  const { t } = useLang();
  const detail = useMessageDetail(id);
  const m = detail.data;
  const request = m?.request;
  return (
    <Popup
      visible={id !== null}
      onMaskClick={onClose}
      onClose={onClose}
      destroyOnClose
      bodyClassName="kwm-sheet"
    >
      <div data-testid="m-msg-detail" data-box={box}>
        {detail.isPending && <div className="kwm-state">{t("common.loading")}</div>}
        {detail.error && <div className="kwm-state kwm-state-error">{detail.error.message}</div>}
        {m && (
          <>
            <h2 className="kwm-sheet-title">{m.title}</h2>
            <div className="kwm-facts">
              <div>
                <span>{t("msg.time")}</span>
                <b>{formatDateTime(m.created_at)}</b>
              </div>
              {m.machine_code && (
                <div>
                  <span>{t("msg.device")}</span>
                  <b>{m.machine_code}</b>
                </div>
              )}
              {m.content && (
                <div>
                  <span>{t("msg.content")}</span>
                  <b data-testid="m-msg-content">{m.content}</b>
                </div>
              )}
              {request && (
                <>
                  <div>
                    <span>{t("access.request.no")}</span>
                    <b>#{request.id}</b>
                  </div>
                  <div>
                    <span>{t("access.request.kind")}</span>
                    <b>{t(`access.kinds.${request.kind}`)}</b>
                  </div>
                  <div>
                    <span>{t("access.request.requester")}</span>
                    <b data-testid="m-msg-requester">
                      {request.requester_name} {request.requester_account}
                    </b>
                  </div>
                  {request.message && (
                    <div>
                      <span>{t("access.request.message")}</span>
                      <b>{request.message}</b>
                    </div>
                  )}
                  <div>
                    <span>{t("access.request.state")}</span>
                    <b data-testid="m-msg-detail-state" data-state={request.auditState}>
                      {(() => {
                        const key = auditStateKey(request.auditState);
                        return key ? t(`access.audit.${key}`) : request.auditState;
                      })()}
                    </b>
                  </div>
                </>
              )}
            </div>
            {request && m.canReply && !isFinalAuditState(request.auditState) && (
              <ReplyForm
                msgId={m.id}
                kind={request.kind}
                requester={request.requester_name || request.requester_account}
              />
            )}
          </>
        )}
        <Button block onClick={onClose} className="kwm-mt" data-testid="m-msg-close">
          {t("common.close")}
        </Button>
      </div>
    </Popup>
  );
}
