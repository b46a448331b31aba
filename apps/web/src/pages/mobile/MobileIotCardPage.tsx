import { formatTrafficKb, HW, type IotCardDetail } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { List, ProgressBar, Tag } from "antd-mobile";
import { useNavigate, useParams } from "react-router";
import { ApiError } from "../../api/errors.ts";
import { useEnterpriseList } from "../../api/hooks.ts";
import { iotCardKeys, iotCardsApi } from "../../api/iotCards.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { MOBILE } from "../../paths.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { PlanName } from "../iotCards/parts.tsx";
import { ListState, MobileHeader } from "./parts.tsx";

/**
 * One 4G card on the phone (/mobile/iotCard/<ICCID>, where a scanned card QR lands): state,
 * plan, traffic used and left, plan expiry, its device and the last read — GET
 * /v1/iotcard/info, the desktop's call. A card belongs to a context: the phone's current one
 * is asked first, then the user's other contexts, so a scan works whichever is chosen.
 */
export function MobileIotCardPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const { iccid = "" } = useParams();
  const current = useAppStore((s) => selectCurrentContext(s).eid);
  const enterprises = useEnterpriseList();
  const contexts = [
    current,
    ...[0, ...(enterprises.data?.list ?? []).map((e) => e.eid)].filter((eid) => eid !== current),
  ];
  const card = useQuery({
    queryKey: [...iotCardKeys.detail(current, iccid), "mobile", contexts],
    enabled: iccid !== "" && !enterprises.isPending,
    queryFn: async (): Promise<IotCardDetail> => {
      let missing: unknown;
      for (const eid of contexts) {
        try {
          return await iotCardsApi.info(eid, iccid);
        } catch (e) {
          // Not among this context's cards: try the next context.
          if (!(e instanceof ApiError && e.is(HW.IOT_CARD_NOT_FOUND.code))) throw e;
          missing = e;
        }
      }
      throw missing;
    },
    meta: { silent: true },
  });
  const view = card.data?.card;
  const notFound = card.error instanceof ApiError && card.error.is(HW.IOT_CARD_NOT_FOUND.code);

  return (
    <div data-testid="m-iot-card">
      <MobileHeader
        title={t("iotCard.detailTitle", { iccid: "" }).trim()}
        back={() => navigate(MOBILE.root)}
      />
      <ListState
        loading={card.isPending && iccid !== ""}
        error={notFound ? null : card.error}
        empty={notFound || iccid === ""}
        emptyText={t("iotCard.notFound")}
        testId="m-iot-card"
      />
      {view && (
        <>
          <List mode="card" header={t("iotCard.cardInfo")}>
            <List.Item extra={<span data-testid="m-iot-iccid">{view.iccid}</span>}>
              {t("iotCard.iccid")}
            </List.Item>
            <List.Item
              extra={
                <Tag
                  color={view.card_state === "working" ? "success" : "warning"}
                  fill="outline"
                  data-testid="m-iot-state"
                  data-state={view.card_state}
                >
                  {t(`iotCard.states.${view.card_state}`)}
                </Tag>
              }
            >
              {t("iotCard.state")}
            </List.Item>
            <List.Item extra={view.machine_name || view.machine_code || "-"}>
              {t("iotCard.device")}
            </List.Item>
            <List.Item extra={view.msisdn || "-"}>{t("iotCard.msisdn")}</List.Item>
            <List.Item extra={t(`iotCard.carriers.${view.carrier}`)}>
              {t("iotCard.carrier")}
            </List.Item>
          </List>
          <List mode="card" header={t("iotCard.trafficTitle")}>
            <List.Item extra={<PlanName name={view.plan_name} />}>{t("iotCard.plan")}</List.Item>
            <List.Item
              description={
                view.used_percent !== null && <ProgressBar percent={view.used_percent} />
              }
              extra={
                <span data-testid="m-iot-used">
                  {t("iotCard.usedOf", {
                    used: formatTrafficKb(view.used_kb),
                    total: formatTrafficKb(view.total_kb),
                  })}
                </span>
              }
            >
              {t("iotCard.used")}
            </List.Item>
            <List.Item extra={formatTrafficKb(view.left_kb)}>{t("iotCard.left")}</List.Item>
            <List.Item
              extra={
                view.expire_time
                  ? `${formatDateTime(view.expire_time).slice(0, 10)}${
                      view.days_left !== null && view.days_left >= 0
                        ? ` · ${t("iotCard.daysLeft", { days: view.days_left })}`
                        : ""
                    }`
                  : "-"
              }
            >
              {t("iotCard.expiry")}
            </List.Item>
            <List.Item
              extra={view.refreshed_at ? formatDateTime(view.refreshed_at) : t("iotCard.never")}
            >
              {t("iotCard.lastRead")}
            </List.Item>
          </List>
        </>
      )}
    </div>
  );
}
