import { CheckOutlined, DownOutlined, ShopOutlined, UserOutlined } from "@ant-design/icons";
import { DROPDOWN_MAX_HEIGHT_PX } from "@keyway/shared";
import { Button, Dropdown, type MenuProps } from "antd";
import { useLang } from "../../i18n/index.ts";
import type { EnterpriseInfo } from "../../store/app.ts";

interface Props {
  current: EnterpriseInfo;
  enterprises: readonly EnterpriseInfo[];
  onSelect: (enterprise: EnterpriseInfo | null) => void;
}

/**
 * Top button of the side navigation (SPEC §2): the current context; a dropdown of personal
 * devices plus each enterprise (max height 360 px) when the user has enterprises, otherwise
 * a plain label.
 */
export function ContextSwitch({ current, enterprises, onSelect }: Props) {
  const { t } = useLang();
  const personalLabel = t("layout.personalDevices");
  const label = current.eid === 0 ? personalLabel : current.name;
  const icon = current.eid === 0 ? <UserOutlined /> : <ShopOutlined />;

  if (enterprises.length === 0) {
    return (
      <div className="kw-context kw-context-label" data-testid="context-label">
        {icon}
        <span className="kw-context-text">{label}</span>
      </div>
    );
  }

  const items: MenuProps["items"] = [
    {
      key: "0",
      icon: <UserOutlined />,
      label: <span data-testid="context-option-personal">{personalLabel}</span>,
      extra: current.eid === 0 ? <CheckOutlined /> : undefined,
    },
    { type: "divider" },
    ...enterprises.map((e) => ({
      key: String(e.eid),
      icon: <ShopOutlined />,
      label: (
        <span data-testid={`context-option-${e.eid}`} title={e.name}>
          {e.name}
        </span>
      ),
      extra: current.eid === e.eid ? <CheckOutlined /> : undefined,
    })),
  ];

  return (
    <Dropdown
      trigger={["click"]}
      menu={{
        items,
        selectable: true,
        selectedKeys: [String(current.eid)],
        style: { maxHeight: DROPDOWN_MAX_HEIGHT_PX, overflowY: "auto" },
        onClick: ({ key }) =>
          onSelect(key === "0" ? null : (enterprises.find((e) => String(e.eid) === key) ?? null)),
      }}
    >
      <Button className="kw-context" block data-testid="context-switch">
        {icon}
        <span className="kw-context-text">{label}</span>
        <DownOutlined className="kw-context-arrow" />
      </Button>
    </Dropdown>
  );
}
