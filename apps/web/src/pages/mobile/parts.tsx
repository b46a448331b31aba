import { alarmLevelKey } from "@keyway/shared";
import { NavBar, Tag } from "antd-mobile";
import type { ReactNode } from "react";
import { useBrand } from "../../brand/brand.ts";
import { isOnline } from "../../features/device/machine.ts";
import { useLang } from "../../i18n/index.ts";
import { useChooseLang } from "../../i18n/useChooseLang.ts";

/** The brand's logo and name, the mobile way. */
export function MobileBrand({ size = 24 }: { size?: number }) {
  const { wording, logo } = useBrand();
  return (
    <span className="kwm-brand">
      <img src={logo} width={size} height={size} alt="" />
      <span className="kwm-brand-name" data-testid="brand-name">
        {wording.name}
      </span>
    </span>
  );
}

/** A screen's top bar: a title (or the brand), back when `back` is given, a right slot. */
export function MobileHeader({
  title,
  back,
  right,
}: {
  title?: ReactNode;
  back?: () => void;
  right?: ReactNode;
}) {
  return (
    <NavBar
      className="kwm-navbar"
      back={back ? "" : null}
      backIcon={back ? undefined : false}
      onBack={back}
      right={right}
    >
      {title ?? <MobileBrand />}
    </NavBar>
  );
}

/** 中文 / EN: the language of every screen (kept like the desktop's switch). */
export function MobileLanguageSwitch() {
  const { lang, choose } = useChooseLang();
  return (
    <span className="kwm-lang">
      <button
        type="button"
        className={lang === "cn" ? "kwm-lang-on" : undefined}
        aria-pressed={lang === "cn"}
        onClick={() => choose("cn")}
        data-testid="m-lang-cn"
      >
        中文
      </button>
      <button
        type="button"
        className={lang === "en" ? "kwm-lang-on" : undefined}
        aria-pressed={lang === "en"}
        onClick={() => choose("en")}
        data-testid="m-lang-en"
      >
        EN
      </button>
    </span>
  );
}

/** Online / offline as a tag. */
export function StateTag({ machine }: { machine: { online?: boolean; state?: 0 | 1 } }) {
  const { t } = useLang();
  const online = isOnline(machine);
  return (
    <Tag
      color={online ? "success" : "default"}
      fill="outline"
      data-testid="m-state"
      data-online={online ? 1 : 0}
    >
      {online ? t("device.online") : t("device.offline")}
    </Tag>
  );
}

const LEVEL_COLORS = {
  info: "primary",
  minor: "warning",
  major: "#fa541c",
  critical: "danger",
} as const;

export function AlarmLevelTag({ level }: { level: number }) {
  const { t } = useLang();
  const band = alarmLevelKey(level);
  return (
    <Tag color={LEVEL_COLORS[band]} data-level={band}>
      {t(`device.alarm.levels.${band}`)}
    </Tag>
  );
}

/** Loading / failed / empty states of a list screen. */
export function ListState({
  loading,
  error,
  empty,
  emptyText,
  testId,
}: {
  loading: boolean;
  error?: Error | null;
  empty: boolean;
  emptyText: string;
  testId: string;
}) {
  const { t } = useLang();
  if (loading)
    return (
      <div className="kwm-state" data-testid={`${testId}-loading`}>
        {t("common.loading")}
      </div>
    );
  if (error)
    return (
      <div className="kwm-state kwm-state-error" data-testid={`${testId}-error`}>
        {error.message || t("common.loadFailed")}
      </div>
    );
  if (empty)
    return (
      <div className="kwm-state" data-testid={`${testId}-empty`}>
        {emptyText}
      </div>
    );
  return null;
}
