import { RightOutlined } from "@ant-design/icons";
import { formatTrafficKb } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Flex, Skeleton, Typography } from "antd";
import { Link } from "react-router";
import { iotCardKeys, iotCardsApi } from "../../api/iotCards.ts";
import { useLang } from "../../i18n/index.ts";
import { iotCardPath } from "../../paths.ts";
import { CardStateTag } from "./parts.tsx";

/**
 * The device's 4G card in the device detail (personal context): ICCID, state and traffic
 * left, linking to the card's page. Someone who does not see the card (docs/architecture/devices.md#4g-cards) gets the
 * ICCID the device reports, without a link.
 */
export function DeviceIotCard({ iccid }: { iccid: string }) {
  const { t } = useLang();
  const card = useQuery({
    queryKey: iotCardKeys.detail(0, iccid.toUpperCase()),
    queryFn: () => iotCardsApi.info(0, iccid),
    retry: false,
    meta: { silent: true },
  });
  if (card.isPending) return <Skeleton.Input size="small" active />;
  if (card.isError || !card.data)
    return (
      <Typography.Text code data-testid="device-iot-card-iccid">
        {iccid}
      </Typography.Text>
    );
  const c = card.data.card;
  return (
    <Flex gap={8} align="center" wrap>
      <Link to={iotCardPath(c.iccid)} data-testid="device-iot-card-link">
        <Typography.Text code>{c.iccid}</Typography.Text>
      </Link>
      <CardStateTag state={c.card_state} />
      {c.left_kb !== null && (
        <Typography.Text type="secondary">
          {t("iotCard.left")} {formatTrafficKb(c.left_kb)}
        </Typography.Text>
      )}
      <Link to={iotCardPath(c.iccid)} className="kw-link-compact">
        {t("iotCard.deviceCardOpen")} <RightOutlined />
      </Link>
    </Flex>
  );
}
