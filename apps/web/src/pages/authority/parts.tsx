import { Button, Popconfirm, Tag, Typography } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useVisitTimeText } from "../msgCenter/audit.tsx";

const testId = (id: string) => ({ "data-testid": id }) as object;

/** The masked phone, else the e-mail, of an entry. */
export function accountOf(entry: { phone?: string; email?: string }): string {
  return entry.phone || entry.email || "-";
}

/** A visit time left (SPEC §3: -1 forever, 0 invalid, otherwise minutes). */
export function VisitTimeCell({ minutes }: { minutes: number }) {
  const { t } = useLang();
  const text = useVisitTimeText();
  if (minutes === -1) {
    return (
      <Tag color="green" className="kw-tag-tight" data-minutes={minutes}>
        {t("access.time.forever")}
      </Tag>
    );
  }
  if (minutes <= 0) {
    return (
      <Tag className="kw-tag-tight" data-minutes={minutes}>
        {t("access.time.invalid")}
      </Tag>
    );
  }
  return (
    <Typography.Text data-minutes={minutes}>
      {t("authority.left", { time: text(minutes) })}
    </Typography.Text>
  );
}

export function ExpiresCell({ value, minutes }: { value: string | null; minutes: number }) {
  const { t } = useLang();
  if (minutes === -1) return <>{t("access.time.never")}</>;
  return <span className="kw-nowrap">{value ? formatDateTime(value) : "-"}</span>;
}

/** A plain (not danger) link that asks first, then runs `onConfirm`. */
export function ConfirmLink(props: {
  title: ReactNode;
  okText: string;
  label: ReactNode;
  testId: string;
  confirmTestId?: string;
  loading?: boolean;
  onConfirm: () => void;
}) {
  const { t } = useLang();
  return (
    <Popconfirm
      title={props.title}
      okText={props.okText}
      cancelText={t("common.cancel")}
      okButtonProps={props.confirmTestId ? { ...testId(props.confirmTestId) } : undefined}
      onConfirm={props.onConfirm}
    >
      <Button type="link" size="small" loading={props.loading} data-testid={props.testId}>
        {props.label}
      </Button>
    </Popconfirm>
  );
}

type Translate = ReturnType<typeof useLang>["t"];
type Person = { name: string; phone?: string; email?: string };

/** The name and masked account columns every authority list starts with. */
export function personColumns<T extends Person>(t: Translate, nameWidth?: number) {
  return [
    {
      title: t("authority.name"),
      dataIndex: "name",
      width: nameWidth,
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("field.account"),
      key: "account",
      ellipsis: true,
      render: (_: unknown, e: T) => accountOf(e),
    },
  ];
}

/** The terminal a visit time is bound to. */
export function terminalColumn(t: Translate) {
  return {
    title: t("access.request.terminal"),
    dataIndex: "terminal_name",
    width: 120,
    ellipsis: true,
    render: (v: string) => v || "-",
  };
}
