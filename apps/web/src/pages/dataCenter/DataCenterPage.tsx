import { ShopOutlined, UserOutlined } from "@ant-design/icons";
import { Tabs, Tag, Typography } from "antd";
import type { ReactNode } from "react";
import { useSearchParams } from "react-router";
import { useLang } from "../../i18n/index.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { CardTrafficTab } from "./CardTrafficTab.tsx";
import { ContactsTab } from "./ContactsTab.tsx";
import { DeviceSmsTab } from "./DeviceSmsTab.tsx";
import { PushConfigTab } from "./PushConfigTab.tsx";
import { PushStatsTab } from "./PushStatsTab.tsx";
import { RecordsTab } from "./RecordsTab.tsx";
import { StockTab } from "./StockTab.tsx";

const TABS = [
  "config",
  "devices",
  "contacts",
  "stock",
  "records",
  "pushStats",
  "cardTraffic",
] as const;
type Tab = (typeof TABS)[number];

function parseTab(value: string | null, enterprise: boolean): Tab {
  const tab = (TABS as readonly string[]).includes(value ?? "") ? (value as Tab) : "config";
  // Stock allocation is an enterprise matter.
  return tab === "stock" && !enterprise ? "config" : tab;
}

/**
 * /dataCenter (SPEC §2 "SMS and e-mail alarm allocation and records"): the SMS / e-mail alarm
 * pushes of the current context — personal (eid 0) or the selected enterprise. Tabs: push
 * settings, per-device SMS switches, alarm contacts, the enterprise's SMS stock (enterprise
 * context), the records, the push charts and the 4G card traffic. The tab is kept in ?tab=.
 */
export function DataCenterPage() {
  const { t } = useLang();
  const context = useAppStore(selectCurrentContext);
  const [params, setParams] = useSearchParams();
  const eid = context.eid;
  const enterprise = eid !== 0;
  const tab = parseTab(params.get("tab"), enterprise);

  const items: { key: Tab; label: string; children: ReactNode }[] = [
    { key: "config", label: t("alarmPush.tabs.config"), children: <PushConfigTab eid={eid} /> },
    { key: "devices", label: t("alarmPush.tabs.devices"), children: <DeviceSmsTab eid={eid} /> },
    {
      key: "contacts",
      label: t("alarmPush.tabs.contacts"),
      children: <ContactsTab eid={eid} />,
    },
    ...(enterprise
      ? [
          {
            key: "stock" as const,
            label: t("alarmPush.tabs.stock"),
            children: <StockTab eid={eid} />,
          },
        ]
      : []),
    { key: "records", label: t("alarmPush.tabs.records"), children: <RecordsTab eid={eid} /> },
    {
      key: "pushStats",
      label: t("pushStats.tab"),
      children: <PushStatsTab eid={eid} />,
    },
    {
      key: "cardTraffic",
      label: t("iotCard.trafficTab"),
      children: <CardTrafficTab eid={eid} />,
    },
  ];

  return (
    <div className="kw-page kw-page-wide" data-testid="data-center-page">
      <div className="kw-page-head kw-dc-head">
        <Typography.Title level={4} className="kw-page-title">
          {t("nav.dataCenter")}
        </Typography.Title>
        <Tag
          icon={enterprise ? <ShopOutlined /> : <UserOutlined />}
          color={enterprise ? "purple" : "blue"}
          data-testid="data-center-context"
        >
          {enterprise ? context.name : t("layout.personalDevices")}
        </Tag>
      </div>
      <Typography.Paragraph type="secondary">
        {enterprise ? t("alarmPush.introEnterprise") : t("alarmPush.introPersonal")}
      </Typography.Paragraph>
      <Tabs
        // A new context starts from fresh tab contents.
        key={eid}
        destroyOnHidden
        activeKey={tab}
        onChange={(key) => {
          const next = new URLSearchParams(params);
          next.set("tab", key);
          // A history entry per section: the back button returns to the section shown before,
          // and the highlighted tab follows the address (activeKey comes from ?tab=).
          setParams(next);
        }}
        items={items.map((item) => ({
          key: item.key,
          label: <span data-testid={`dc-tab-${item.key}`}>{item.label}</span>,
          children: item.children,
        }))}
      />
    </div>
  );
}
