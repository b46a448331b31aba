import { DesktopOutlined } from "@ant-design/icons";
import type { Machine } from "@keyway/shared";
import { Badge, Tag, Tooltip, Typography } from "antd";
import { useState } from "react";
import { useMachineIcons } from "../../api/hooks.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime, formatRelative } from "../../lib/format.ts";
import { useNow } from "../../lib/useNow.ts";
import { type IdentityKey, isOnline, machineIconUrl } from "./machine.ts";

/**
 * The machine type icon (SPEC §3 icon map). Machines carry their icon URL; only one without
 * it looks the icon map up. A generic icon when there is none or the image fails.
 */
export function MachineIcon({
  machine,
  size = 28,
}: {
  machine: Pick<Machine, "icon" | "model" | "machine_name">;
  size?: number;
}) {
  if (machine.icon) return <IconImage url={machine.icon} size={size} />;
  return <MappedIcon machine={machine} size={size} />;
}

function MappedIcon({
  machine,
  size,
}: {
  machine: Pick<Machine, "icon" | "model" | "machine_name">;
  size: number;
}) {
  const icons = useMachineIcons();
  return <IconImage url={machineIconUrl(machine, icons.data)} size={size} />;
}

function IconImage({ url, size }: { url: string | undefined; size: number }) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!url || failed === url) {
    return (
      <span
        className="kw-machine-icon kw-machine-icon-generic"
        style={{ width: size, height: size }}
      >
        <DesktopOutlined style={{ fontSize: size * 0.55 }} />
      </span>
    );
  }
  return (
    <img
      className="kw-machine-icon"
      src={url}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      onError={() => setFailed(url)}
    />
  );
}

/**
 * Icon, name and (greyed) alias on one line. Plain elements with CSS ellipsis: this renders
 * in every visible row of lists up to 5000 devices.
 */
export function MachineNameCell({ machine }: { machine: Machine }) {
  const name = machine.machine_name || machine.machine_code;
  return (
    <span className="kw-machine-name-cell">
      {/* 22 px: a row stays at the virtual table's estimated height (no jumps while scrolling) */}
      <MachineIcon machine={machine} size={22} />
      <span className="kw-machine-name-text">
        <span className="kw-machine-name" title={name}>
          {name}
        </span>
        {machine.alias && (
          <span className="kw-machine-alias" title={machine.alias}>
            {machine.alias}
          </span>
        )}
      </span>
    </span>
  );
}

export function StateBadge({
  machine,
  testId,
}: {
  machine: Pick<Machine, "online" | "state">;
  testId?: string;
}) {
  const { t } = useLang();
  const online = isOnline(machine);
  return (
    <Badge
      status={online ? "success" : "default"}
      text={online ? t("device.online") : t("device.offline")}
      data-state={online ? "online" : "offline"}
      data-testid={testId}
    />
  );
}

/** "Last seen 3 minutes ago", the exact time in a tooltip; "never" before the first contact. */
export function LastSeen({ value }: { value: string | null | undefined }) {
  const { t } = useLang();
  const now = useNow();
  const relative = formatRelative(value, now);
  if (!relative) {
    return (
      <Typography.Text type="secondary" data-testid="device-last-seen" data-value="">
        {t("device.neverSeen")}
      </Typography.Text>
    );
  }
  return (
    <Tooltip title={formatDateTime(value)}>
      <Typography.Text type="secondary" data-testid="device-last-seen" data-value={value ?? ""}>
        {t("device.lastSeen", { when: relative })}
      </Typography.Text>
    </Tooltip>
  );
}

const IDENTITY_COLORS: Record<IdentityKey, string> = {
  akey: "gold",
  bkey: "blue",
  user: "default",
  visitor: "green",
  none: "default",
};

export function IdentityTag({ identity }: { identity: IdentityKey }) {
  const { t } = useLang();
  return (
    <Tag color={IDENTITY_COLORS[identity]} className="kw-tag-tight">
      {t(`device.identity.${identity}`)}
    </Tag>
  );
}

/** A machine code in a monospace font; `copyable` adds a copy button (details, not lists). */
export function MachineCode({ code, copyable = false }: { code: string; copyable?: boolean }) {
  if (!copyable) return <span className="kw-code">{code}</span>;
  return (
    <Typography.Text className="kw-code" copyable={{ text: code }}>
      {code}
    </Typography.Text>
  );
}
