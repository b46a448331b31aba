import { DesktopOutlined } from "@ant-design/icons";
import type { QrLoginRequestInfo } from "@keyway/shared";
import { Button, ConfigProvider, DotLoading, List, NoticeBar, Result, SafeArea } from "antd-mobile";
import enUS from "antd-mobile/es/locales/en-US";
import zhCN from "antd-mobile/es/locales/zh-CN";
import { type CSSProperties, useEffect, useState } from "react";
import { Link, useLocation, useSearchParams } from "react-router";
import { ApiError } from "../../../api/errors.ts";
import { qrLoginApi } from "../../../api/twoFactor.ts";
import { brand, useBrand } from "../../../brand/brand.ts";
import { useLang } from "../../../i18n/index.ts";
import { formatDateTime } from "../../../lib/format.ts";
import { hasToken } from "../../../lib/session.ts";
import { MOBILE } from "../../../paths.ts";
import "./qrLogin.css";

type View =
  | { kind: "loading" }
  | { kind: "ask"; info: QrLoginRequestInfo }
  | { kind: "confirmed" }
  | { kind: "cancelled" }
  | { kind: "refused"; message: string }
  | { kind: "needLogin" }
  | { kind: "noToken" };

/** A refused scan or answer: a lost login sends to the login, anything else is told. */
function refusal(e: unknown): View {
  if (e instanceof ApiError && (e.status === 401 || e.kind === "session")) {
    return { kind: "needLogin" };
  }
  return { kind: "refused", message: e instanceof Error ? e.message : String(e) };
}

const KNOWN_TYPES = ["web", "mobile", "android", "ios", "tv", "pc"] as const;

/**
 * /mobile/qrLogin?token=...: what a phone's camera opens from the desktop's QR. The logged-in
 * phone sees which terminal asks (browser, system, IP, time) and confirms or cancels; a used,
 * cancelled or expired QR is told in the user's language. Without a login the phone is sent
 * to the mobile login, which comes back here.
 */
export function QrConfirmPage() {
  const { t, lang } = useLang();
  const { wording, logo } = useBrand();
  const location = useLocation();
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const [view, setView] = useState<View>(() =>
    !token ? { kind: "noToken" } : hasToken() ? { kind: "loading" } : { kind: "needLogin" },
  );
  const [busy, setBusy] = useState<"confirm" | "cancel" | null>(null);

  useEffect(() => {
    if (!token || !hasToken()) return;
    let live = true;
    qrLoginApi
      .scan(token)
      .then((info) => live && setView({ kind: "ask", info }))
      .catch((e) => live && setView(refusal(e)));
    return () => {
      live = false;
    };
  }, [token]);

  const answer = async (confirm: boolean) => {
    setBusy(confirm ? "confirm" : "cancel");
    try {
      await qrLoginApi.answer(token, confirm);
      setView({ kind: confirm ? "confirmed" : "cancelled" });
    } catch (e) {
      setView(refusal(e));
    } finally {
      setBusy(null);
    }
  };

  const back = `${location.pathname}${location.search}`;
  const style = { "--adm-color-primary": brand.color } as CSSProperties;

  return (
    <ConfigProvider locale={lang === "en" ? enUS : zhCN}>
      <div className="kwq" style={style} data-testid="m-qr-page">
        <SafeArea position="top" />
        <header className="kwq-brand">
          <img src={logo} width={28} height={28} alt="" />
          <span>{wording.name}</span>
        </header>
        <main className="kwq-body">
          {view.kind === "loading" && (
            <div className="kwq-center" data-testid="m-qr-loading">
              <DotLoading color="primary" />
              <div className="kwq-muted">{t("qrLogin.phoneLoading")}</div>
            </div>
          )}
          {view.kind === "ask" && (
            <div data-testid="m-qr-ask">
              <div className="kwq-hero">
                <DesktopOutlined className="kwq-hero-icon" />
                <h1>{t("qrLogin.phoneTitle")}</h1>
                <p className="kwq-muted">{t("qrLogin.phoneIntro")}</p>
              </div>
              <List mode="card">
                <List.Item
                  extra={<span data-testid="m-qr-terminal">{terminalText(view.info)}</span>}
                >
                  {t("qrLogin.phoneTerminal")}
                </List.Item>
                <List.Item extra={<span data-testid="m-qr-ip">{view.info.ip || "-"}</span>}>
                  {t("qrLogin.phoneIp")}
                </List.Item>
                <List.Item extra={formatDateTime(view.info.requestTime)}>
                  {t("qrLogin.phoneTime")}
                </List.Item>
                <List.Item extra={formatDateTime(view.info.expiredTime)}>
                  {t("qrLogin.phoneExpires")}
                </List.Item>
              </List>
              <NoticeBar
                className="kwq-notice"
                color="alert"
                wrap
                content={t("qrLogin.phoneWarning")}
              />
              <div className="kwq-actions">
                <Button
                  block
                  color="primary"
                  size="large"
                  loading={busy === "confirm"}
                  disabled={busy !== null}
                  onClick={() => answer(true)}
                  data-testid="m-qr-confirm"
                >
                  {t("qrLogin.phoneConfirm")}
                </Button>
                <Button
                  block
                  size="large"
                  fill="outline"
                  loading={busy === "cancel"}
                  disabled={busy !== null}
                  onClick={() => answer(false)}
                  data-testid="m-qr-cancel"
                >
                  {t("qrLogin.phoneCancel")}
                </Button>
              </div>
            </div>
          )}
          {view.kind === "confirmed" && (
            <Done
              status="success"
              title={t("qrLogin.phoneConfirmed")}
              description={t("qrLogin.phoneConfirmedHint")}
              testId="m-qr-confirmed"
              doneLabel={t("qrLogin.phoneDone")}
            />
          )}
          {view.kind === "cancelled" && (
            <Done
              status="info"
              title={t("qrLogin.phoneCancelled")}
              description={t("qrLogin.phoneCancelledHint")}
              testId="m-qr-cancelled"
              doneLabel={t("qrLogin.phoneDone")}
            />
          )}
          {view.kind === "refused" && (
            <Done
              status="warning"
              title={t("qrLogin.phoneRefused")}
              description={view.message}
              testId="m-qr-refused"
              doneLabel={t("qrLogin.phoneDone")}
            />
          )}
          {view.kind === "noToken" && (
            <Done
              status="warning"
              title={t("qrLogin.phoneNoToken")}
              testId="m-qr-refused"
              doneLabel={t("qrLogin.phoneDone")}
            />
          )}
          {view.kind === "needLogin" && (
            <div data-testid="m-qr-need-login">
              <Result
                status="info"
                title={t("qrLogin.phoneNeedLogin")}
                description={t("qrLogin.phoneNeedLoginHint")}
              />
              <div className="kwq-actions">
                <Link to={`${MOBILE.login}?redirect=${encodeURIComponent(back)}`}>
                  <Button block color="primary" size="large" data-testid="m-qr-login">
                    {t("qrLogin.phoneLogin")}
                  </Button>
                </Link>
              </div>
            </div>
          )}
        </main>
        <SafeArea position="bottom" />
      </div>
    </ConfigProvider>
  );

  function terminalText(info: QrLoginRequestInfo): string {
    const type = (KNOWN_TYPES as readonly string[]).includes(info.terminalType)
      ? t(`safety.terminalTypes.${info.terminalType as (typeof KNOWN_TYPES)[number]}`)
      : info.terminalType;
    const what = [info.terminalName, info.terminalOS].filter(Boolean).join(" · ");
    return what ? `${what} (${type})` : type;
  }
}

function Done(props: {
  status: "success" | "info" | "warning";
  title: string;
  description?: string;
  testId: string;
  doneLabel: string;
}) {
  return (
    <div data-testid={props.testId}>
      <Result status={props.status} title={props.title} description={props.description} />
      <div className="kwq-actions">
        <Link to={MOBILE.root}>
          <Button block size="large">
            {props.doneLabel}
          </Button>
        </Link>
      </div>
    </div>
  );
}
