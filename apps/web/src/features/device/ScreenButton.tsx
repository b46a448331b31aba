import { DesktopOutlined } from "@ant-design/icons";
import { Button } from "antd";
import type { VisitScope } from "../../api/visits.ts";
import { useLang } from "../../i18n/index.ts";
import { screenPath } from "../../paths.ts";
import { OfflineHint } from "./ConnectButton.tsx";
import { isOnline } from "./machine.ts";

/** What "Screen" needs of a device row: its id, live state and whether its agent offers VNC. */
export interface ScreenTarget {
  machine_id: number;
  online?: boolean;
  state?: 0 | 1;
  /** The device's agent offers its screen (VNC): only then is there a "Screen". */
  screen?: boolean;
}

/** Whether the row gets a "Screen" (its agent offers VNC; offline it is shown disabled). */
export function offersScreen(machine: ScreenTarget): boolean {
  return machine.screen === true;
}

/**
 * "Screen" beside "Connect": the device's own screen (VNC) in Keyway's viewer, in a new tab
 * like Connect (a plain link: the viewer asks the visit URL itself, so no popup is opened
 * from script). Nothing for a device whose agent offers no screen; disabled with the reason
 * while it is offline.
 */
export function ScreenButton({
  machine,
  scope = {},
  testId,
  variant = "link",
}: {
  machine: ScreenTarget;
  scope?: VisitScope;
  testId: string;
  variant?: "link" | "button";
}) {
  const { t } = useLang();
  if (!offersScreen(machine)) return null;
  const online = isOnline(machine);
  const button = (
    <Button
      type={variant === "link" ? "link" : "default"}
      size={variant === "link" ? "small" : "middle"}
      icon={variant === "button" ? <DesktopOutlined /> : undefined}
      disabled={!online}
      href={online ? screenPath(machine.machine_id, scope) : undefined}
      target="_blank"
      rel="noopener"
      onClick={(e) => e.stopPropagation()}
      data-testid={testId}
      data-online={online ? 1 : 0}
    >
      {t("device.screen.button")}
    </Button>
  );
  return <OfflineHint online={online}>{button}</OfflineHint>;
}
