import { type AlarmStateFilter, PAGE_SIZE } from "@keyway/shared";
import { useInfiniteQuery } from "@tanstack/react-query";
import { CapsuleTabs, InfiniteScroll, List, PullToRefresh } from "antd-mobile";
import { useState } from "react";
import { alarmsApi } from "../../api/alarms.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { AlarmItem } from "./AlarmItem.tsx";
import { ContextPicker, useMobileContext } from "./ContextPicker.tsx";
import { ListState, MobileHeader } from "./parts.tsx";

type Filter = "all" | AlarmStateFilter;

/**
 * The alarms of the phone's context on the phone (POST /v1/devices/alarmList with the
 * context's eid, the desktop's alarm centre call; SPEC §9's 6 a page, more on scrolling), unconfirmed ones first to hand, each with
 * Confirm (asked first). Pushes refresh it (useMobilePush).
 */
export function MobileAlarmsPage() {
  const { t } = useLang();
  const [filter, setFilter] = useState<Filter>("unconfirmed");
  const eid = useMobileContext().current.eid;
  const filters = { eid, state: filter === "all" ? undefined : filter };
  const pages = useInfiniteQuery({
    queryKey: [...queryKeys.alarmsAll, "mobile", eid, filter],
    queryFn: ({ pageParam }) => alarmsApi.list(filters, pageParam),
    initialPageParam: 1,
    getNextPageParam: (last, all) =>
      all.length * PAGE_SIZE.alarms < last.total ? all.length + 1 : undefined,
  });
  const list = pages.data?.pages.flatMap((p) => p.list) ?? [];
  const total = pages.data?.pages[0]?.total ?? 0;
  return (
    <div data-testid="m-alarms" data-eid={eid}>
      <MobileHeader title={<ContextPicker fallback={t("alarms.title")} />} />
      <CapsuleTabs activeKey={filter} onChange={(key) => setFilter(key as Filter)}>
        {(["unconfirmed", "active", "all"] as const).map((key) => (
          <CapsuleTabs.Tab
            key={key}
            title={
              <span data-testid={`m-alarm-filter-${key}`}>
                {key === "all" ? t("alarms.allStates") : t(`alarms.states.${key}`)}
              </span>
            }
          />
        ))}
      </CapsuleTabs>
      <PullToRefresh onRefresh={async () => void (await pages.refetch())}>
        <ListState
          loading={pages.isPending}
          error={pages.error}
          empty={pages.isSuccess && list.length === 0}
          emptyText={filter === "all" ? t("alarms.emptyAll") : t("alarms.empty")}
          testId="m-alarms"
        />
        {list.length > 0 && (
          <List header={t("alarms.total", { total })} data-testid="m-alarm-list">
            {list.map((a) => (
              <AlarmItem key={a.id} alarm={a} eid={eid} />
            ))}
          </List>
        )}
        {list.length > 0 && (
          <InfiniteScroll
            hasMore={pages.hasNextPage}
            loadMore={async () => void (await pages.fetchNextPage())}
          />
        )}
      </PullToRefresh>
    </div>
  );
}
