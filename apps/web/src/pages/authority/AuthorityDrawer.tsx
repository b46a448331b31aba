import type { Machine } from "@keyway/shared";
import { Drawer, Tabs, Tag } from "antd";
import { useState } from "react";
import { useLang } from "../../i18n/index.ts";
import { BlackListTab } from "./BlackListTab.tsx";
import { MembersTab } from "./MembersTab.tsx";
import { NoPermission, SettingsTab } from "./SettingsTab.tsx";
import { ValidVisitTab } from "./ValidVisitTab.tsx";
import { WhiteListTab } from "./WhiteListTab.tsx";

type AuthorityTab = "members" | "white" | "black" | "valid" | "settings";

/**
 * The authority centre of a device (SPEC §2 "tabs Bkey, white list, black list, valid visit
 * time"), opened from the device detail by its Akey and Bkeys; the Akey also gets the device
 * settings (audit mode, transfer). A Bkey sees "User has no permission" there.
 */
export function AuthorityDrawer(props: {
  open: boolean;
  machine: Machine;
  identity: "akey" | "bkey";
  onClose: () => void;
}) {
  const { t } = useLang();
  const [tab, setTab] = useState<AuthorityTab>("members");
  const id = props.machine.machine_id;
  const label = (key: AuthorityTab, text: string) => (
    <span data-testid={`auth-tab-${key}`}>{text}</span>
  );
  return (
    <Drawer
      open={props.open}
      onClose={props.onClose}
      afterOpenChange={(visible) => {
        if (!visible) setTab("members");
      }}
      size={920}
      destroyOnHidden
      title={
        <span>
          {t("authority.title")} · {props.machine.machine_name || props.machine.machine_code}{" "}
          <Tag color={props.identity === "akey" ? "gold" : "blue"} className="kw-tag-tight">
            {t(`device.identity.${props.identity}`)}
          </Tag>
        </span>
      }
      data-testid="authority-drawer"
    >
      <Tabs
        activeKey={tab}
        onChange={(key) => setTab(key as AuthorityTab)}
        items={[
          {
            key: "members",
            label: label("members", t("authority.tabBkey")),
            children: <MembersTab machineId={id} />,
          },
          {
            key: "white",
            label: label("white", t("authority.tabWhite")),
            children: <WhiteListTab machineId={id} />,
          },
          {
            key: "black",
            label: label("black", t("authority.tabBlack")),
            children: <BlackListTab machineId={id} />,
          },
          {
            key: "valid",
            label: label("valid", t("authority.tabValid")),
            children: <ValidVisitTab machineId={id} />,
          },
          {
            key: "settings",
            label: label("settings", t("authority.tabSettings")),
            children:
              props.identity === "akey" ? (
                <SettingsTab machine={props.machine} />
              ) : (
                <NoPermission />
              ),
          },
        ]}
      />
    </Drawer>
  );
}
