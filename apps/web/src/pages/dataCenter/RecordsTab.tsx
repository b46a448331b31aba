import { PAGE_SIZE } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Card, DatePicker, Flex, Segmented } from "antd";
import type { Dayjs } from "dayjs";
import { useState } from "react";
import { alarmPushApi, type RecordQuery } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { rangeToSeconds } from "./parts.tsx";
import { EmailRecords, SmsRecords } from "./SendRecords.tsx";
import { StockRecords } from "./StockRecords.tsx";

type Kind = "sales" | "allocation" | "sms" | "email";
type Range = [Dayjs | null, Dayjs | null] | null;

/**
 * Records of the context with a date range: stock sales, allocations and transfers
 * (enterprise admins), SMS sends and e-mail sends. Newest first, 10 a page (SPEC §9 SMS logs);
 * times are epoch seconds shown as local YYYY-MM-DD HH:mm:ss.
 */
export function RecordsTab({ eid }: { eid: number }) {
  const { t } = useLang();
  const entConfig = useQuery({
    queryKey: queryKeys.alarmPush(eid, "entConfig"),
    queryFn: () => alarmPushApi.entConfig(eid),
    enabled: eid !== 0,
    meta: { silent: true },
  });
  const admin = eid !== 0 && entConfig.data?.isAdmin === true;
  // Personal: sales to the caller and the caller's sends. Enterprise: stock records are the
  // admins'; a member sees the sends made for them.
  const kinds: Kind[] =
    eid === 0
      ? ["sales", "sms", "email"]
      : admin
        ? ["sales", "allocation", "sms", "email"]
        : ["sms", "email"];
  const [chosen, setChosen] = useState<Kind>("sms");
  const kind = kinds.includes(chosen) ? chosen : "sms";
  const [range, setRange] = useState<Range>(null);
  const [page, setPage] = useState(1);

  const query: RecordQuery = {
    eid,
    ...rangeToSeconds(range),
    page,
    pageSize: PAGE_SIZE.smsLogs,
  };

  return (
    <Card className="kw-card" data-testid="records">
      <Flex wrap gap={12} align="center" className="kw-toolbar">
        <Segmented<Kind>
          value={kind}
          onChange={(value) => {
            setChosen(value);
            setPage(1);
          }}
          options={kinds.map((k) => ({
            value: k,
            label: <span data-testid={`records-kind-${k}`}>{t(`alarmPush.records.${k}`)}</span>,
          }))}
        />
        <div className="kw-grow" />
        <DatePicker.RangePicker
          value={range}
          onChange={(value) => {
            setRange(value);
            setPage(1);
          }}
          allowEmpty={[false, false]}
          placeholder={[t("alarmPush.records.start"), t("alarmPush.records.end")]}
          data-testid="records-range"
        />
      </Flex>
      {kind === "sales" || kind === "allocation" ? (
        <StockRecords kind={kind} query={query} admin={admin} onPage={setPage} />
      ) : kind === "sms" ? (
        <SmsRecords query={query} admin={admin} onPage={setPage} />
      ) : (
        <EmailRecords query={query} admin={admin} onPage={setPage} />
      )}
    </Card>
  );
}
