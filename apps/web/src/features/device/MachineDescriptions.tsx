import type { Machine } from "@keyway/shared";
import { Alert, Button, Descriptions, type DescriptionsProps, Space, Typography } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { MachineCode, MachineIcon, StateBadge } from "./MachineParts.tsx";

/** A machine drawer's title: type icon + name (or code). */
export function MachineDrawerTitle({ machine }: { machine: Machine }) {
  return (
    <Space size={10}>
      <MachineIcon machine={machine} size={32} />
      <span>{machine.machine_name || machine.machine_code}</span>
    </Space>
  );
}

/** The fresh detail failed to load (the list row stays on screen): message + retry. */
export function DetailRetryAlert({ message, onRetry }: { message: string; onRetry: () => void }) {
  const { t } = useLang();
  return (
    <Alert
      type="warning"
      showIcon
      title={message}
      action={
        <Button size="small" onClick={onRetry}>
          {t("common.retry")}
        </Button>
      }
    />
  );
}

/**
 * The machine's facts in a drawer. `identity` (the user's role on it) follows the state when
 * given; `personal` adds the alias and the remark of the personal device list.
 */
export function MachineDescriptions({
  machine,
  identity,
  personal,
}: {
  machine: Machine;
  identity?: ReactNode;
  personal?: boolean;
}) {
  const { t } = useLang();
  const items: DescriptionsProps["items"] = [
    {
      key: "code",
      label: t("device.code"),
      children: <MachineCode code={machine.machine_code} copyable />,
    },
    { key: "state", label: t("device.state"), children: <StateBadge machine={machine} /> },
    ...(identity !== undefined
      ? [{ key: "identity", label: t("device.identityLabel"), children: identity }]
      : []),
    ...(personal
      ? [{ key: "alias", label: t("device.alias"), children: machine.alias || "-" }]
      : []),
    { key: "model", label: t("device.model"), children: machine.model || "-" },
    { key: "version", label: t("device.version"), children: machine.version || "-" },
    { key: "ip", label: t("device.ip"), children: machine.ip || "-" },
    { key: "group", label: t("device.group"), children: machine.group_name || t("group.none") },
    ...(personal
      ? [
          {
            key: "remark",
            label: t("device.remark"),
            children: machine.machine_remark ? (
              <Typography.Paragraph className="kw-pre">
                {machine.machine_remark}
              </Typography.Paragraph>
            ) : (
              "-"
            ),
          },
        ]
      : []),
    { key: "created", label: t("device.created"), children: formatDateTime(machine.created_at) },
  ];
  return (
    <Descriptions
      column={1}
      size="small"
      bordered
      styles={{ label: { width: 140 } }}
      items={items}
    />
  );
}
