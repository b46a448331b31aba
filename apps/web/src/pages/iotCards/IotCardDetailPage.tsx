import { ArrowLeftOutlined, CreditCardOutlined } from "@ant-design/icons";
import { HW } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Button, Card, Flex, Result, Skeleton, Typography } from "antd";
import { useNavigate, useParams } from "react-router";
import { ApiError } from "../../api/errors.ts";
import { iotCardKeys, iotCardsApi } from "../../api/iotCards.ts";
import { useLang } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { CardDetail } from "./CardDetail.tsx";
import { CardStateTag, LagNote, testId, WarningTags } from "./parts.tsx";

/**
 * /iotCard/:iccid: one card — identity, state, plan, traffic used / left with its history
 * this month, plan expiry, the warnings it raised, its QR code for the phone app, and a
 * "read now" limited to once an hour (the carriers' figures lag 6-12 hours anyway).
 */
export function IotCardDetailPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const { iccid = "" } = useParams();
  const eid = useAppStore(selectCurrentContext).eid;
  const detail = useQuery({
    queryKey: iotCardKeys.detail(eid, iccid),
    queryFn: () => iotCardsApi.info(eid, iccid),
    meta: { silent: true },
  });

  const back = (
    <Button
      type="link"
      icon={<ArrowLeftOutlined />}
      onClick={() => navigate(PATHS.iotCard)}
      className="kw-link-compact"
      {...testId("iot-back")}
    >
      {t("iotCard.back")}
    </Button>
  );

  if (detail.isError && !detail.data) {
    const missing =
      detail.error instanceof ApiError &&
      (detail.error.is(HW.IOT_CARD_NOT_FOUND.code) || detail.error.is(HW.BAD_REQUEST.code));
    return (
      <div className="kw-page kw-page-wide" {...testId("iot-detail-page")}>
        {back}
        <Result
          status={missing ? "404" : "warning"}
          title={missing ? t("iotCard.notFound") : t("iotCard.loadFailed")}
          subTitle={detail.error.message}
          extra={
            missing ? undefined : (
              <Button onClick={() => detail.refetch()}>{t("common.retry")}</Button>
            )
          }
          {...testId("iot-detail-error")}
        />
      </div>
    );
  }

  return (
    <div className="kw-page kw-page-wide" {...testId("iot-detail-page")}>
      {back}
      <Flex align="baseline" gap={12} wrap className="kw-page-head">
        <Typography.Title level={4} className="kw-page-title">
          <CreditCardOutlined /> {t("iotCard.detailTitle", { iccid })}
        </Typography.Title>
        {detail.data && <CardStateTag state={detail.data.card.card_state} />}
        {detail.data && <WarningTags card={detail.data.card} />}
      </Flex>
      <LagNote />
      {!detail.data ? (
        <Card className="kw-card">
          <Skeleton active paragraph={{ rows: 10 }} />
        </Card>
      ) : (
        <CardDetail detail={detail.data} eid={eid} />
      )}
    </div>
  );
}
