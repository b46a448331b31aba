import type { IotCardView } from "@keyway/shared";
import { Button, Flex, type TableProps, Typography } from "antd";
import { Link } from "react-router";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { iotCardPath } from "../../paths.ts";
import { CardStateTag, ExpiryText, LastRead, TrafficBar, testId, WarningTags } from "./parts.tsx";

/** The card list's columns: ICCID and number, device, state and warnings, traffic, expiry, last read. */
export function useIotCardColumns(
  open: (card: IotCardView) => void,
): TableProps<IotCardView>["columns"] {
  const { t } = useLang();
  return [
    {
      title: t("iotCard.iccid"),
      dataIndex: "iccid",
      width: 200,
      render: (iccid: string, c) => (
        <Flex vertical gap={2}>
          <Link to={iotCardPath(iccid)} onClick={(e) => e.stopPropagation()} className="kw-code">
            {iccid}
          </Link>
          {c.msisdn && (
            <Typography.Text type="secondary" className="kw-small">
              {c.msisdn}
            </Typography.Text>
          )}
        </Flex>
      ),
    },
    {
      title: t("iotCard.device"),
      key: "device",
      width: 150,
      render: (_: unknown, c) => (
        <Flex vertical gap={2}>
          {c.machine_name !== c.machine_code && (
            <Typography.Text ellipsis>{c.machine_name}</Typography.Text>
          )}
          <MachineCode code={c.machine_code} />
        </Flex>
      ),
    },
    {
      title: t("iotCard.state"),
      key: "state",
      width: 140,
      render: (_: unknown, c) => (
        <Flex wrap gap={4}>
          <CardStateTag state={c.card_state} />
          <WarningTags card={c} />
        </Flex>
      ),
    },
    {
      title: t("iotCard.traffic"),
      key: "traffic",
      width: 175,
      render: (_: unknown, c) => <TrafficBar card={c} />,
    },
    {
      title: t("iotCard.expiry"),
      key: "expiry",
      width: 190,
      render: (_: unknown, c) => <ExpiryText card={c} />,
    },
    {
      title: t("iotCard.lastRead"),
      key: "read",
      width: 175,
      render: (_: unknown, c) => <LastRead card={c} />,
    },
    {
      title: t("common.action"),
      key: "action",
      width: 90,
      fixed: "right",
      render: (_: unknown, c) => (
        <Button
          type="link"
          size="small"
          onClick={(e) => {
            e.stopPropagation();
            open(c);
          }}
          {...testId(`iot-open-${c.iccid}`)}
        >
          {t("iotCard.details")}
        </Button>
      ),
    },
  ];
}
