import { formatUnreadBadge } from "@keyway/shared";
import { Badge, Menu } from "antd";
import { useMemo } from "react";
import { useLocation, useNavigate } from "react-router";
import { useEnterpriseList } from "../../api/hooks.ts";
import { useLang } from "../../i18n/index.ts";
import { PERSONAL_CONTEXT, selectCurrentContext, useAppStore } from "../../store/app.ts";
import { ContextSwitch } from "./ContextSwitch.tsx";
import { activeEntryKey, entryDeviceType, visibleEntries } from "./nav.tsx";

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
