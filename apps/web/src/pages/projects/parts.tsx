import { CrownOutlined, UserOutlined } from "@ant-design/icons";
import { PROJECT_LEVEL } from "@keyway/shared";
import { Tag } from "antd";
import { useLang } from "../../i18n/index.ts";

/** A project user's level: 3 owner, 2 user (SPEC §3 Project user). */
export function LevelTag({ level }: { level: number }) {
  const { t } = useLang();
  return level === PROJECT_LEVEL.owner ? (
    <Tag color="gold" icon={<CrownOutlined />} data-level={level}>
      {t("project.owner")}
    </Tag>
  ) : (
    <Tag icon={<UserOutlined />} data-level={level}>
      {t("project.user")}
    </Tag>
  );
}

export function ReportStateTag({ on }: { on: boolean }) {
  const { t } = useLang();
  return (
    <Tag color={on ? "green" : "default"} data-on={on ? 1 : 0}>
      {on ? t("project.reportOn") : t("project.reportOff")}
    </Tag>
  );
}

export const isOwner = (level: number | undefined) => level === PROJECT_LEVEL.owner;
