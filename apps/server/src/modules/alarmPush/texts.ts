import { brandById, DEFAULT_BRAND, type Lang } from "@keyway/shared";

const LEVEL_TEXT: Record<string, { zh: string; en: string }> = {
  info: { zh: "提示", en: "info" },
  minor: { zh: "次要", en: "minor" },
  major: { zh: "重要", en: "major" },
  critical: { zh: "紧急", en: "critical" },
};
const levelBand = (level: number) =>
  level <= 0 ? "info" : level === 1 ? "minor" : level === 2 ? "major" : "critical";

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than using it. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const formatterOf = (timeZone: string) => {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat("sv-SE", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hour12: false,
    });
    formatters.set(timeZone, fmt);
  }
  return fmt;
};

/** "YYYY-MM-DD HH:mm:ss" in the alarm's time zone when it is a known one, UTC otherwise. */
export function formatTime(at: Date, timeZone: string): string {
  try {
    return `${formatterOf(timeZone).format(at)} ${timeZone}`;
  } catch {
    return `${formatterOf("UTC").format(at)} UTC`;
  }
}

export interface AlarmText {
  device: string;
  level: number;
  content: string;
  time: string;
}

/** The SMS text in the reader's language (billed by its length, SPEC §5). */
export function alarmSmsText(brandId: string | null, lang: Lang, a: AlarmText): string {
  const b = brandById(brandId) ?? DEFAULT_BRAND;
  const level = LEVEL_TEXT[levelBand(a.level)];
  return lang === "en"
    ? `[${b.en.name}] Alarm on ${a.device} (${level.en}): ${a.content} ${a.time}`
    : `【${b.zh.name}】${a.device} 报警（${level.zh}）：${a.content} ${a.time}`;
}

/** The e-mail: the brand's name in the subject, zh and en in one text. */
export function alarmEmail(brandId: string | null, a: AlarmText) {
  const b = brandById(brandId) ?? DEFAULT_BRAND;
  const level = LEVEL_TEXT[levelBand(a.level)];
  const subject = `【${b.zh.name}】设备报警 ${a.device} / [${b.en.name}] Device alarm: ${a.device}`;
  const text = [
    `${b.zh.name} 设备报警`,
    `设备：${a.device}`,
    `级别：${level.zh}（${a.level}）`,
    `内容：${a.content}`,
    `时间：${a.time}`,
    "",
    `${b.en.name} device alarm`,
    `Device: ${a.device}`,
    `Level: ${level.en} (${a.level})`,
    `Content: ${a.content}`,
    `Time: ${a.time}`,
    "",
    b.website,
  ].join("\n");
  return { subject, text };
}
