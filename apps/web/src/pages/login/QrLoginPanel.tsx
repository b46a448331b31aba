import { ReloadOutlined } from "@ant-design/icons";
import { HW, QR_LOGIN, type QrTokenResult } from "@keyway/shared";
import { App, Button, Checkbox, Flex, QRCode, type QRCodeProps, Typography } from "antd";
import { useCallback, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { ApiError } from "../../api/errors.ts";
import { qrLoginApi } from "../../api/twoFactor.ts";
import { brand, useBrand } from "../../brand/brand.ts";
import { useLang } from "../../i18n/index.ts";
import { terminalInfo } from "../../lib/terminal.ts";
import { LANDING_ROUTE } from "../../paths.ts";
import { finishLogin } from "./performLogin.ts";
import { afterClosingCheck, type QrStatus, qrTick } from "./qrTiming.ts";

type Status = QrStatus;

/**
 * A QR is renewed by itself this many times (about ten minutes) while the page is in view;
 * after that, or in a background tab, it shows "expired, refresh" so an unattended login
 * page does not keep asking for codes.
 */
const AUTO_REFRESHES = 5;

/**
 * The desktop's QR login (docs/architecture/accounts.md#login): a QR of the phone's confirm page,
 * a countdown, a check every QR_LOGIN.pollMs; once the phone confirms, the session is saved
 * and the user lands on the device list.
 */
export function QrLoginPanel() {
  const { t } = useLang();
  const { wording } = useBrand();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [qr, setQr] = useState<QrTokenResult | null>(null);
  const [status, setStatus] = useState<Status>("loading");
  const [error, setError] = useState<string | null>(null);
  const [keep, setKeep] = useState(false);
  const [expiresAt, setExpiresAt] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  const refreshes = useRef(0);
  const keepRef = useRef(keep);
  keepRef.current = keep;

  const issue = useCallback(async (keepLogin: boolean) => {
    setStatus("loading");
    setError(null);
    try {
      const next = await qrLoginApi.getQrToken({
        ...terminalInfo(),
        loginOemId: brand.id,
        keepLogin,
      });
      setQr(next);
      // The local clock with the QR's lifetime: no skew between server and browser.
      setExpiresAt(Date.now() + next.ttlSeconds * 1000);
      setNow(Date.now());
      setStatus("active");
    } catch (e) {
      setQr(null);
      setStatus("error");
      setError(e instanceof Error ? e.message : String(e));
    }
  }, []);

  const refresh = useCallback(() => {
    refreshes.current = 0;
    void issue(keepRef.current);
  }, [issue]);

  useEffect(() => {
    void issue(false);
  }, [issue]);

  // Countdown, and renewal shortly before the end.
  useEffect(() => {
    if (status !== "active" && status !== "scanned") return;
    const timer = window.setInterval(() => setNow(Date.now()), 500);
    return () => window.clearInterval(timer);
  }, [status]);
  const remaining = Math.max(0, Math.ceil((expiresAt - now) / 1000));
  // The session handed over by a check: saved, then the device list.
  const collect = useCallback(
    (answer: Awaited<ReturnType<typeof qrLoginApi.check>>) => {
      if (!answer.result) return;
      const result = finishLogin(answer.result, answer.keepLogin ?? false);
      message.success(t("qrLogin.success", { name: result.name }));
      navigate(LANDING_ROUTE, { replace: true });
    },
    [message, navigate, t],
  );
  // Shortly before the end an unscanned QR is checked once more, then renewed (qrTiming.ts);
  // a scanned one is polled on through the server's pick-up grace.
  const tick = qrTick(status, expiresAt - now);
  const closing = useRef(false);
  useEffect(() => {
    if (tick === "expire") setStatus("expired");
    if (tick !== "closing" || !qr || closing.current) return;
    closing.current = true;
    const canRenew = refreshes.current < AUTO_REFRESHES && document.visibilityState === "visible";
    void (async () => {
      let answer: "waiting" | "scanned" | "confirmed" | "refused" = "refused";
      try {
        const check = await qrLoginApi.check(qr.checkToken);
        if (check.state === "confirmed" && check.result) return collect(check);
        answer = check.state === "scanned" ? "scanned" : "waiting";
      } catch (e) {
        if (e instanceof ApiError && e.is(HW.QR_CANCELLED.code)) return setStatus("cancelled");
      } finally {
        closing.current = false;
      }
      const next = afterClosingCheck(answer, canRenew);
      if (next === "scanned") setStatus("scanned");
      else if (next === "renew") {
        refreshes.current += 1;
        void issue(keepRef.current);
      } else setStatus("expired");
    })();
  }, [tick, qr, issue, collect]);

  // The poll: waiting → scanned → confirmed (the session), or a refusal.
  useEffect(() => {
    if (!qr || (status !== "active" && status !== "scanned")) return;
    const controller = new AbortController();
    let busy = false;
    const timer = window.setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const answer = await qrLoginApi.check(qr.checkToken, controller.signal);
        if (answer.state === "confirmed" && answer.result) {
          window.clearInterval(timer);
          collect(answer);
          return;
        }
        setStatus(answer.state === "scanned" ? "scanned" : "active");
      } catch (e) {
        if (!(e instanceof ApiError) || e.kind === "transport") return; // try again next tick
        if (e.is(HW.QR_CANCELLED.code)) setStatus("cancelled");
        else if (e.is(HW.QR_EXPIRED.code) || e.is(HW.QR_USED.code)) setStatus("expired");
        else {
          setStatus("error");
          setError(e.message);
        }
      } finally {
        busy = false;
      }
    }, QR_LOGIN.pollMs);
    return () => {
      window.clearInterval(timer);
      controller.abort();
    };
  }, [qr, status, collect]);

  const qrStatus: QRCodeProps["status"] =
    status === "loading"
      ? "loading"
      : status === "scanned"
        ? "scanned"
        : status === "active"
          ? "active"
          : "expired";

  return (
    <Flex vertical align="center" gap={12} className="kw-qr-login" data-testid="qr-panel">
      <div data-testid="qr-code" data-status={status}>
        <QRCode
          value={qr?.url ?? "-"}
          size={196}
          status={qrStatus}
          onRefresh={refresh}
          statusRender={(info) =>
            info.status === "expired" ? (
              <Flex vertical align="center" gap={8}>
                <Typography.Text strong data-testid="qr-expired">
                  {status === "cancelled"
                    ? t("qrLogin.cancelled")
                    : status === "error"
                      ? t("qrLogin.loadFailed")
                      : t("qrLogin.expired")}
                </Typography.Text>
                <Button
                  type="link"
                  icon={<ReloadOutlined />}
                  onClick={refresh}
                  data-testid="qr-refresh"
                >
                  {t("qrLogin.refresh")}
                </Button>
              </Flex>
            ) : info.status === "scanned" ? (
              <Typography.Text strong data-testid="qr-scanned">
                {t("qrLogin.scanned")}
              </Typography.Text>
            ) : undefined
          }
        />
      </div>
      <Typography.Text type="secondary" data-testid="qr-countdown" aria-live="polite">
        {status === "loading"
          ? t("qrLogin.loading")
          : status === "active" || status === "scanned"
            ? t("qrLogin.expiresIn", { seconds: remaining })
            : "\u00a0"}
      </Typography.Text>
      {error && status === "error" && (
        <Typography.Text type="danger" data-testid="qr-error">
          {error}
        </Typography.Text>
      )}
      <Typography.Paragraph type="secondary" className="kw-qr-hint">
        {t("qrLogin.hint", { brand: wording.name })}
      </Typography.Paragraph>
      <Checkbox
        checked={keep}
        data-testid="qr-keep"
        onChange={(e) => {
          setKeep(e.target.checked);
          // The choice travels with the QR: a new one carries it.
          refreshes.current = 0;
          void issue(e.target.checked);
        }}
      >
        {t("qrLogin.keep")}
      </Checkbox>
    </Flex>
  );
}
