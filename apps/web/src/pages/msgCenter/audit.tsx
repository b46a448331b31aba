import {
  type AccessKind,
  type AccessRequestView,
  AUDIT_STATE,
  type AuditStep,
  MESSAGE_TYPE,
} from "@keyway/shared";
import { Descriptions, Tag, Timeline, Typography } from "antd";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";

export type AuditStateKey = keyof typeof AUDIT_STATE;
export type MessageTypeKey = keyof typeof MESSAGE_TYPE;

function invert<K extends string>(table: Record<K, number>): Map<number, K> {
  return new Map(Object.entries(table).map(([key, value]) => [value as number, key as K]));
}
const STATE_KEYS = invert<AuditStateKey>(AUDIT_STATE);
const TYPE_KEYS = invert<MessageTypeKey>(MESSAGE_TYPE);

export function auditStateKey(state: number | null | undefined): AuditStateKey | undefined {
  return state === null || state === undefined ? undefined : STATE_KEYS.get(state);
}

export function messageTypeKey(type: number): MessageTypeKey | undefined {
  return TYPE_KEYS.get(type);
}

const STATE_COLORS: Record<AuditStateKey, string> = {
  pending: "processing",
  akeyPassedWaitingBkey: "gold",
  bkeyPassedWaitingAkey: "gold",
  refusedByAkey: "error",
  refusedByBkey: "error",
  allPassed: "success",
};

/** SPEC §4 "Bind and visit audit": the state of a request in words. */
export function AuditStateTag({ state, kind }: { state: number; kind?: AccessKind }) {
  const { t } = useLang();
  const key = auditStateKey(state);
  if (!key) return <Tag>{state}</Tag>;
  const text =
    key === "allPassed" && kind === "bind" ? t("access.audit.bound") : t(`access.audit.${key}`);
  return (
    <Tag
      color={STATE_COLORS[key]}
      className="kw-tag-tight"
      data-testid="audit-state"
      data-state={state}
    >
      {text}
    </Tag>
  );
}

const TYPE_COLORS: Record<MessageTypeKey, string> = {
  alarm: "red",
  voice: "volcano",
  bindApplication: "purple",
  visitApplication: "blue",
  projectAlarm: "magenta",
  logout: "default",
  applyIssue: "orange",
  akeyReply: "cyan",
  bkeyReply: "cyan",
  accessRequest: "geekblue",
  bindSuccess: "green",
  visitSuccess: "green",
  massTexting: "default",
};

export function MessageTypeTag({ type }: { type: number }) {
  const { t } = useLang();
  const key = messageTypeKey(type);
  return (
    <Tag color={key ? TYPE_COLORS[key] : "default"} className="kw-tag-tight" data-type={type}>
      {key ? t(`msg.types.${key}`) : type}
    </Tag>
  );
}

/** "Forever", "Invalid" or "1 d 2 h 5 min" for minutes (SPEC §3: -1 forever, 0 invalid). */
export function useVisitTimeText() {
  const { t } = useLang();
  return (minutes: number | null | undefined): string => {
    if (minutes === null || minutes === undefined) return "-";
    if (minutes === -1) return t("access.time.forever");
    if (minutes <= 0) return t("access.time.invalid");
    const days = Math.floor(minutes / 1440);
    const hours = Math.floor((minutes % 1440) / 60);
    const rest = minutes % 60;
    const parts: string[] = [];
    if (days) parts.push(t("access.time.days", { count: days }));
    if (hours) parts.push(t("access.time.hours", { count: hours }));
    if (rest) parts.push(t("access.time.minutes", { count: rest }));
    return parts.join(" ");
  };
}

const STEP_COLORS: Record<AuditStep["result"], string> = {
  submitted: "blue",
  agree: "green",
  refuse: "red",
  blacklist: "gray",
};

/** The audit process of a request, oldest step first. */
export function AuditSteps({ steps }: { steps: readonly AuditStep[] }) {
  const { t } = useLang();
  if (steps.length === 0) {
    return <Typography.Text type="secondary">{t("access.process.noSteps")}</Typography.Text>;
  }
  return (
    <Timeline
      className="kw-mt-sm"
      items={steps.map((step, index) => ({
        key: `${index}-${step.at}`,
        color: STEP_COLORS[step.result],
        content: (
          <div data-testid="audit-step" data-result={step.result}>
            <Typography.Text strong>
              {t(`access.process.by.${step.by}`)}
              {step.name ? ` ${step.name}` : ""}
            </Typography.Text>{" "}
            <Typography.Text>{t(`access.process.results.${step.result}`)}</Typography.Text>
            {step.message && (
              <div>
                <Typography.Text type="secondary">“{step.message}”</Typography.Text>
              </div>
            )}
            <div>
              <Typography.Text type="secondary" className="kw-small">
                {formatDateTime(step.at)}
              </Typography.Text>
            </div>
          </div>
        ),
      }))}
    />
  );
}

/** A request's facts: number, kind, device, requester, messages, state, visit time. */
export function RequestFacts({ request }: { request: AccessRequestView }) {
  const { t } = useLang();
  const visitTimeText = useVisitTimeText();
  const items = [
    { key: "no", label: t("access.request.no"), children: `#${request.id}` },
    { key: "kind", label: t("access.request.kind"), children: t(`access.kinds.${request.kind}`) },
    {
      key: "device",
      label: t("msg.device"),
      children: (
        <span>
          <MachineCode code={request.machine_code} />
          {request.machine_name ? ` · ${request.machine_name}` : ""}
        </span>
      ),
    },
    {
      key: "requester",
      label: t("access.request.requester"),
      children:
        [request.requester_name, request.requester_account].filter(Boolean).join(" · ") || "-",
    },
    ...(request.kind === "visit"
      ? [
          {
            key: "terminal",
            label: t("access.request.terminal"),
            children: request.terminal_name || "-",
          },
        ]
      : [{ key: "remarks", label: t("access.request.remarks"), children: request.remarks || "-" }]),
    { key: "message", label: t("access.request.message"), children: request.message || "-" },
    {
      key: "mode",
      label: t("access.request.mode"),
      children: t(request.check_type === 1 ? "authority.modePassword" : "authority.modeApproval"),
    },
    {
      key: "state",
      label: t("access.request.state"),
      children: <AuditStateTag state={request.auditState} kind={request.kind} />,
    },
    ...(request.kind === "visit" && request.visit_time !== null
      ? [
          {
            key: "time",
            label: t("access.request.visitTime"),
            children: visitTimeText(request.visit_time),
          },
        ]
      : []),
    {
      key: "created",
      label: t("access.request.created"),
      children: formatDateTime(request.created_at),
    },
  ];
  return <Descriptions column={1} size="small" bordered items={items} />;
}
