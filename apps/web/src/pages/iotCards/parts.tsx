import { InfoCircleOutlined } from "@ant-design/icons";
import {
  formatTrafficKb,
  IOT_CARD_INFO_LAG_HOURS,
  IOT_CARD_REFRESH,
  type IotCardState,
  type IotCardView,
  type Lang,
  readErrorOf,
} from "@keyway/shared";
import { Alert, Progress, Tag, Tooltip, Typography } from "antd";
import { type Translate, useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";

export const testId = (id: string) => ({ "data-testid": id }) as object;

/** Colours of the SPEC §4 card states (tags and the state chart). */
export const STATE_COLORS: Record<IotCardState, string> = {
  working: "green",
  activationPending: "blue",
  unactivated: "default",
  suspended: "orange",
  outOfService: "red",
  disconnected: "volcano",
  expired: "magenta",
  cancelled: "default",
  unknown: "default",
  deleted: "default",
};

/** Chart colours for the same states (antd preset hues). */
export const STATE_CHART_COLORS: Record<IotCardState, string> = {
  working: "#52c41a",
  activationPending: "#1677ff",
  unactivated: "#bfbfbf",
  suspended: "#fa8c16",
  outOfService: "#f5222d",
  disconnected: "#fa541c",
  expired: "#eb2f96",
  cancelled: "#8c8c8c",
  unknown: "#d9d9d9",
  deleted: "#595959",
};

export function CardStateTag({ state }: { state: IotCardState }) {
  const { t } = useLang();
  return (
    <Tag color={STATE_COLORS[state]} className="kw-tag-tight" data-state={state}>
      {t(`iotCard.states.${state}`)}
    </Tag>
  );
}

/** Used / plan as a bar, red when low; "-" without plan figures. */
export function TrafficBar({ card }: { card: IotCardView }) {
  const { t } = useLang();
  if (card.total_kb === null || card.used_kb === null || card.used_percent === null)
    return <Typography.Text type="secondary">-</Typography.Text>;
  return (
    <div style={{ minWidth: 150 }} {...testId(`iot-traffic-${card.iccid}`)}>
      <Progress
        percent={card.used_percent}
        size="small"
        status={card.low_traffic ? "exception" : "normal"}
        showInfo={false}
      />
      <Typography.Text type="secondary" className="kw-small">
        {t("iotCard.usedOf", {
          used: formatTrafficKb(card.used_kb),
          total: formatTrafficKb(card.total_kb),
        })}
      </Typography.Text>
    </div>
  );
}

/** The plan's end with the days left (warned within the expiry window). */
export function ExpiryText({ card }: { card: IotCardView }) {
  const { t } = useLang();
  if (!card.expire_time || card.days_left === null) return <span>-</span>;
  const date = formatDateTime(card.expire_time).slice(0, 10);
  const days = card.days_left;
  const label =
    days < 0
      ? t("iotCard.endedAgo", { days: -days })
      : days === 0
        ? t("iotCard.endsToday")
        : t("iotCard.daysLeft", { days });
  return (
    <span className="kw-nowrap">
      {date}{" "}
      <Tag color={card.expiring ? "red" : "default"} className="kw-tag-tight">
        {label}
      </Tag>
    </span>
  );
}

/** Warning tags of a card (low traffic, plan ending). */
export function WarningTags({ card }: { card: IotCardView }) {
  const { t } = useLang();
  return (
    <>
      {card.low_traffic === 1 && (
        <Tag color="red" className="kw-tag-tight" {...testId(`iot-low-${card.iccid}`)}>
          {t("iotCard.lowTraffic")}
        </Tag>
      )}
      {card.expiring === 1 && (
        <Tag color="magenta" className="kw-tag-tight" {...testId(`iot-expiring-${card.iccid}`)}>
          {t("iotCard.expiring")}
        </Tag>
      )}
    </>
  );
}

/** When the carrier was last read, with the failure of a later read if any. */
export function LastRead({ card }: { card: IotCardView }) {
  const { t } = useLang();
  return (
    <span className="kw-nowrap">
      {card.refreshed_at ? formatDateTime(card.refreshed_at) : t("iotCard.never")}
      {card.last_error && (
        <Tooltip title={t("iotCard.lastError", { error: readErrorText(card.last_error, t) })}>
          <InfoCircleOutlined style={{ marginLeft: 6, color: "#fa8c16" }} />
        </Tooltip>
      )}
    </span>
  );
}

/** Words of a plan name: Chinese ones, Latin ones (not units like GB), and the rest. */
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const LATIN_WORD = /^[A-Za-z]+[.,;:)]*$/;
const UNIT = /^(?:[KMGT]B|[KMGT]iB|[2345]G)$/i;

/**
 * The plan name in the UI language. A carrier's name is its own text (OneLink: Chinese); a
 * name given in both languages — "1 GB 月包 monthly", as the simulator carrier names its
 * plans — keeps the words of the UI language and the neutral ones (figures, units). A name
 * in one language is shown as the carrier gave it.
 */
export function planNameIn(name: string, lang: Lang): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const isLatin = (w: string) => LATIN_WORD.test(w) && !UNIT.test(w);
  const hasCjk = words.some((w) => CJK.test(w));
  if (!hasCjk || !words.some(isLatin)) return name.trim();
  return words.filter((w) => (lang === "en" ? !CJK.test(w) : !isLatin(w))).join(" ");
}

/** A card's plan name as the user reads it (the same on the desktop and the phone). */
export function PlanName({ name }: { name: string }) {
  const { lang } = useLang();
  return <span data-testid="iot-plan-name">{name ? planNameIn(name, lang) : "-"}</span>;
}

/** SPEC §9: card figures lag 6-12 hours; said wherever they are shown. */
export function LagNote({ compact = false }: { compact?: boolean }) {
  const { t } = useLang();
  const text = t("iotCard.lag", {
    min: IOT_CARD_INFO_LAG_HOURS.min,
    max: IOT_CARD_INFO_LAG_HOURS.max,
    hours: IOT_CARD_REFRESH.everyHours,
  });
  if (compact)
    return (
      <Typography.Text type="secondary" className="kw-small" {...testId("iot-lag-note")}>
        <InfoCircleOutlined /> {text}
      </Typography.Text>
    );
  return <Alert type="info" showIcon title={text} className="kw-mb" {...testId("iot-lag-note")} />;
}

/** A card's last_error code in the user's language (the server never sends carrier text). */
export function readErrorText(lastError: string, t: Translate): string {
  const error = readErrorOf(lastError);
  if (!error) return "";
  return t(`iotCard.readError.${error.kind}`, { status: error.status });
}
