import { formatUnreadBadge } from "@keyway/shared";
import { Badge, Menu } from "antd";
import { useMemo } from "react";
import { useLocation, useNavigate } from "react-router";
import { useEnterpriseList } from "../../api/hooks.ts";
import { useLang } from "../../i18n/index.ts";
import { safeStorage } from "../../lib/storage.ts";
import {
  type DeviceType,
  PERSONAL_CONTEXT,
  selectCurrentContext,
  useAppStore,
} from "../../store/app.ts";
import { ContextSwitch } from "./ContextSwitch.tsx";
import { activeEntryKey, entryDeviceType, visibleEntries } from "./nav.tsx";

/** Where the device type of SPEC §2 (0 personal, 1 enterprise, 2 maintenance) is kept. */
export const DEVICE_TYPE_KEY = "keyway.deviceType";

/** The stored device type, for screens that must pick a list before the user does. */
export function storedDeviceType(): DeviceType {
  const value = safeStorage.get(DEVICE_TYPE_KEY);
  return value === "1" ? 1 : value === "2" ? 2 : 0;
}

// The store keeps the type for this page; storage keeps it across reloads. Restored before
// any screen renders, so the first screen after a reload already sees the user's last list.
useAppStore.setState({ deviceType: storedDeviceType() });
useAppStore.subscribe((state, previous) => {
  if (state.deviceType !== previous.deviceType) {
    safeStorage.set(DEVICE_TYPE_KEY, String(state.deviceType));
  }
});

/** Side navigation: context switch and the entries of the current context (SPEC §2). */
export function SideNav({ pages }: { pages: ReadonlySet<string> }) {
  const { t } = useLang();
  const navigate = useNavigate();
  const location = useLocation();
  const user = useAppStore((s) => s.user);
  const context = useAppStore(selectCurrentContext);
  const enterprises = useAppStore((s) => s.enterprisesList);
  const unread = useAppStore((s) => s.messageCenter.totalUnreadMsg);
  const setDeviceType = useAppStore((s) => s.setDeviceType);
  const selectContext = useAppStore((s) => s.selectContext);
  // Refreshes the stored enterprise list the context switch offers.
  useEnterpriseList();

  const entries = useMemo(() => visibleEntries(pages, { user, context }), [pages, user, context]);
  const selected = activeEntryKey(entries, location.pathname, location.search);

  return (
    <nav className="kw-sidenav" data-testid="side-nav">
      <div className="kw-sidenav-context">
        <ContextSwitch
          current={context}
          enterprises={enterprises}
          onSelect={(enterprise) => {
            selectContext(enterprise);
            const kind = enterprise && enterprise.eid !== 0 ? "enterprise" : "personal";
            const first = visibleEntries(pages, {
              user,
              context: enterprise ?? PERSONAL_CONTEXT,
            }).find((e) => e.context === kind);
            if (first) navigate(`${first.path}${first.search ?? ""}`);
          }}
        />
      </div>
      <Menu
        mode="inline"
        // Folded away on a narrow window, not shrunk to icons: no hover names over the page.
        inlineCollapsed={false}
        tooltip={false}
        className="kw-sidenav-menu"
        selectedKeys={selected ? [selected] : []}
        items={entries.map((entry) => ({
          key: entry.key,
          icon: entry.icon,
          label: (
            <span className="kw-nav-label" data-testid={`nav-${entry.key}`}>
              {t(entry.label)}
              {entry.badge === "unread" && unread > 0 && (
                <Badge
                  count={formatUnreadBadge(unread)}
                  className="kw-nav-badge"
                  data-testid="nav-unread"
                />
              )}
            </span>
          ),
        }))}
        onClick={({ key }) => {
          const entry = entries.find((e) => e.key === key);
          if (!entry) return;
          setDeviceType(entryDeviceType(entry, context));
          navigate(`${entry.path}${entry.search ?? ""}`);
        }}
      />
    </nav>
  );
}
