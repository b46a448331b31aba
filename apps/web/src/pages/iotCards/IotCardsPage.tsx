import { CreditCardOutlined, ReloadOutlined, ShopOutlined, UserOutlined } from "@ant-design/icons";
import {
  HW,
  IOT_CARD_STATES,
  type IotCardState,
  type IotCardView,
  iotCardListBody,
} from "@keyway/shared";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Button, Card, Flex, Form, Input, Result, Select, Table, Tag, Typography } from "antd";
import { useState } from "react";
import { useNavigate } from "react-router";
import { ApiError } from "../../api/errors.ts";
import { type IotCardListQuery, iotCardKeys, iotCardsApi } from "../../api/iotCards.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { useZodRule } from "../../lib/zodRule.tsx";
import { iotCardPath } from "../../paths.ts";
import { selectCurrentContext, useAppStore } from "../../store/app.ts";
import { useIotCardColumns } from "./iotCardColumns.tsx";
import { LagNote, testId } from "./parts.tsx";

const PAGE_SIZE = 20;
/** Figures change every few hours at most; the list is read again now and then. */
const REFRESH_MS = 60_000;
/** The sum of the column widths in iotCardColumns.tsx (1440 px minus navigation and paddings: 1134 px). */
const TABLE_WIDTH = 1120;

/**
 * /iotCard (SPEC §2 "IoT card details"): the 4G cards of the devices the user sees in the
 * current context, with state, traffic used / left, plan expiry and the carriers' 6-12 hour
 * lag; search by ICCID, number or device, filter by state; a row opens the card.
 */
export function IotCardsPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const context = useAppStore(selectCurrentContext);
  const eid = context.eid;
  const [form] = Form.useForm<{ blur: string }>();
  const rule = useZodRule(iotCardListBody);
  const [blur, setBlur] = useState("");
  const [state, setState] = useState<IotCardState | undefined>();
  const [page, setPage] = useState(1);

  const query: IotCardListQuery = { eid, blur, state, page, pageSize: PAGE_SIZE };
  const cards = useQuery({
    queryKey: iotCardKeys.list(query),
    queryFn: () => iotCardsApi.list(query),
    placeholderData: keepPreviousData,
    refetchInterval: REFRESH_MS,
    meta: { silent: true },
  });
  // New cards are read in the background: look again shortly while some are unread.
  const unread = cards.data?.list.some((c) => !c.refreshed_at && c.card_state !== "deleted");
  useQuery({
    queryKey: [...iotCardKeys.list(query), "unread"],
    queryFn: async () => {
      await cards.refetch();
      return Date.now();
    },
    enabled: Boolean(unread),
    refetchInterval: 2_000,
    meta: { silent: true },
  });

  const total = cards.data?.total ?? 0;
  const filtered = Boolean(blur || state);
  const open = (card: IotCardView) => navigate(iotCardPath(card.iccid));

  const columns = useIotCardColumns(open);

  let body: React.ReactNode;
  const error = cards.error;
  if (cards.isError && !cards.data) {
    const refused = error instanceof ApiError && error.is(HW.NO_PERMISSION.code);
    body = (
      <Result
        status={refused ? "403" : "warning"}
        title={refused ? t("iotCard.refused") : t("iotCard.loadFailed")}
        subTitle={error?.message}
        extra={
          refused ? undefined : <Button onClick={() => cards.refetch()}>{t("common.retry")}</Button>
        }
        {...testId("iot-error")}
      />
    );
  } else {
    body = (
      <Table<IotCardView>
        rowKey="iccid"
        size="middle"
        columns={columns}
        dataSource={cards.data?.list ?? []}
        loading={cards.isPending || (cards.isFetching && cards.isPlaceholderData)}
        // The columns' widths (TABLE_WIDTH): the table fits the content area at 1440 px with
        // the navigation beside it, so the fixed Action column covers nothing; narrower, it
        // scrolls sideways.
        scroll={{ x: TABLE_WIDTH }}
        onRow={(c) =>
          ({
            "data-testid": `iot-row-${c.iccid}`,
            onClick: () => open(c),
            style: { cursor: "pointer" },
          }) as React.HTMLAttributes<HTMLElement>
        }
        pagination={{
          current: page,
          pageSize: PAGE_SIZE,
          total,
          showSizeChanger: false,
          hideOnSinglePage: true,
          showTotal: (n) => t("iotCard.total", { total: n }),
          onChange: setPage,
        }}
        locale={{
          emptyText: (
            <div {...testId("iot-empty")}>
              <ListEmpty
                error={cards.isError ? (error?.message ?? null) : null}
                onRetry={() => cards.refetch()}
                description={filtered ? t("iotCard.empty") : t("iotCard.emptyAll")}
              />
            </div>
          ),
        }}
      />
    );
  }

  return (
    <div className="kw-page kw-page-wide" {...testId("iot-cards-page")}>
      <Flex align="baseline" gap={12} wrap className="kw-page-head">
        <Typography.Title level={4} className="kw-page-title">
          <CreditCardOutlined /> {t("iotCard.title")}
        </Typography.Title>
        <Tag
          icon={eid !== 0 ? <ShopOutlined /> : <UserOutlined />}
          color={eid !== 0 ? "purple" : "blue"}
          {...testId("iot-context")}
        >
          {eid !== 0 ? context.name : t("layout.personalDevices")}
        </Tag>
      </Flex>
      <LagNote />
      <Card className="kw-card kw-mb" styles={{ body: { padding: 16 } }}>
        <Form
          form={form}
          layout="inline"
          initialValues={{ blur: "" }}
          onFinish={(values) => {
            setBlur(values.blur.trim());
            setPage(1);
          }}
        >
          <Form.Item
            name="blur"
            // The server's own rule (50 characters at most).
            rules={[rule("blur")]}
          >
            <Input.Search
              allowClear
              placeholder={t("iotCard.search")}
              style={{ width: 320 }}
              onSearch={() => form.submit()}
              {...testId("iot-search")}
            />
          </Form.Item>
          <Form.Item>
            <Select
              allowClear
              style={{ width: 180 }}
              placeholder={t("iotCard.allStates")}
              value={state}
              onChange={(value) => {
                setState(value);
                setPage(1);
              }}
              options={IOT_CARD_STATES.map((s) => ({ value: s, label: t(`iotCard.states.${s}`) }))}
              {...testId("iot-filter-state")}
            />
          </Form.Item>
          <Form.Item>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => cards.refetch()}
              loading={cards.isFetching && !cards.isPending}
              {...testId("iot-reload")}
            >
              {t("alarms.refresh")}
            </Button>
          </Form.Item>
        </Form>
      </Card>
      <Card className="kw-card" styles={{ body: { padding: "4px 16px 16px" } }}>
        <Flex align="baseline" gap={12} className="kw-card-head">
          <Typography.Text strong>{t("iotCard.listTitle")}</Typography.Text>
          {cards.data && (
            <Typography.Text type="secondary" {...testId("iot-total")} data-total={total}>
              {t("iotCard.total", { total })}
            </Typography.Text>
          )}
        </Flex>
        <div {...testId("iot-list")}>{body}</div>
      </Card>
    </div>
  );
}
