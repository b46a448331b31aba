import {
  CheckOutlined,
  DownOutlined,
  PlusOutlined,
  ShopOutlined,
  UserOutlined,
} from "@ant-design/icons";
import { DROPDOWN_MAX_HEIGHT_PX } from "@keyway/shared";
import { Button, Dropdown, type MenuProps, Tooltip } from "antd";
import { useState } from "react";
import { CreateOwnEnterpriseModal } from "../../features/enterprise/CreateOwnEnterpriseModal.tsx";
import {
  useCreationBlocker,
  useEnterpriseCreation,
} from "../../features/enterprise/enterpriseCreation.ts";
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
 * a plain label. Where the user may create an enterprise, the dropdown ends with "Create
 * enterprise" (the label gets a "+"); the new enterprise is selected like a chosen one.
 */
export function ContextSwitch({ current, enterprises, onSelect }: Props) {
  const { t } = useLang();
  const [creating, setCreating] = useState(false);
  const { allowed, canCreate } = useEnterpriseCreation();
  const blocker = useCreationBlocker();
  const personalLabel = t("layout.personalDevices");
  const label = current.eid === 0 ? personalLabel : current.name;
  const icon = current.eid === 0 ? <UserOutlined /> : <ShopOutlined />;
  const modal = (
    <CreateOwnEnterpriseModal
      open={creating}
      onClose={() => setCreating(false)}
      onCreated={(created) => onSelect(created)}
    />
  );

  if (enterprises.length === 0) {
    return (
      <div className="kw-context kw-context-label" data-testid="context-label">
        {icon}
        <span className="kw-context-text">{label}</span>
        {canCreate && (
          <Tooltip title={t("entCreate.action")}>
            <Button
              type="text"
              size="small"
              className="kw-context-add"
              icon={<PlusOutlined />}
              aria-label={t("entCreate.action")}
              onClick={() => setCreating(true)}
              data-testid="context-create"
            />
          </Tooltip>
        )}
        {modal}
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
  // The brand switch off: no entry at all; the limit reached: a disabled one saying why.
  if (allowed) {
    items.push(
      { type: "divider" },
      {
        key: CREATE_KEY,
        icon: <PlusOutlined />,
        disabled: !canCreate,
        label: (
          <span data-testid="context-create" title={blocker ?? undefined}>
            {t("entCreate.action")}
          </span>
        ),
      },
    );
  }

  return (
    <>
      <Dropdown
        trigger={["click"]}
        menu={{
          items,
          selectable: true,
          selectedKeys: [String(current.eid)],
          style: { maxHeight: DROPDOWN_MAX_HEIGHT_PX, overflowY: "auto" },
          onClick: ({ key }) => {
            if (key === CREATE_KEY) setCreating(true);
            else
              onSelect(
                key === "0" ? null : (enterprises.find((e) => String(e.eid) === key) ?? null),
              );
          },
        }}
      >
        <Button className="kw-context" block data-testid="context-switch">
          {icon}
          <span className="kw-context-text">{label}</span>
          <DownOutlined className="kw-context-arrow" />
        </Button>
      </Dropdown>
      {modal}
    </>
  );
}

const CREATE_KEY = "create";
