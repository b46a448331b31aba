import { ShopOutlined } from "@ant-design/icons";
import { Avatar, Drawer, Space, Tabs, Tag, Typography } from "antd";
import type { EnterpriseSummary } from "../../api/enterprises.ts";
import { useLang } from "../../i18n/index.ts";
import { AdminDevicesPanel } from "../enterpriseAdmin/AdminDevicesPanel.tsx";
import { GroupsPanel } from "../enterpriseAdmin/GroupsPanel.tsx";
import { MembersPanel } from "../enterpriseAdmin/MembersPanel.tsx";
import { SmsSalePanel } from "./SmsSalePanel.tsx";

/** An enterprise in the back office: members, devices and device groups. */
export function EnterpriseDrawer(props: {
  enterprise: EnterpriseSummary | null;
  onClose: () => void;
}) {
  const { t } = useLang();
  const e = props.enterprise;
  return (
    <Drawer
      open={e !== null}
      onClose={props.onClose}
      size={920}
      destroyOnHidden
      title={
        e && (
          <Space>
            <Avatar shape="square" src={e.applyLogoUrl || undefined} icon={<ShopOutlined />} />
            <span>{e.name}</span>
            <Typography.Text type="secondary">#{e.eid}</Typography.Text>
            {e.enableProject === 1 && <Tag color="green">{t("bo.projects")}</Tag>}
          </Space>
        )
      }
      data-testid="bo-enterprise-drawer"
    >
      {e && (
        <Tabs
          destroyOnHidden
          items={[
            {
              key: "members",
              label: <span data-testid="bo-enterprise-tab-members">{t("enterprise.members")}</span>,
              children: <MembersPanel eid={e.eid} />,
            },
            {
              key: "devices",
              label: <span data-testid="bo-enterprise-tab-devices">{t("enterprise.devices")}</span>,
              children: <AdminDevicesPanel eid={e.eid} canManage />,
            },
            {
              key: "groups",
              label: <span data-testid="ent-groups-tab">{t("enterprise.groups")}</span>,
              children: <GroupsPanel eid={e.eid} />,
            },
            {
              key: "sms",
              label: <span data-testid="bo-enterprise-tab-sms">{t("alarmPush.sale.tab")}</span>,
              children: <SmsSalePanel eid={e.eid} />,
            },
          ]}
        />
      )}
    </Drawer>
  );
}
