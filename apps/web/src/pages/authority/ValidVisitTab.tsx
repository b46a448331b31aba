import type { WhiteListEntry } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Form, Space, Table, type TableProps, Typography } from "antd";
import { useState } from "react";
import { authorityApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { FormModal } from "../../components/FormModal.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import {
  DEFAULT_VISIT_TIME,
  VisitTimeInput,
  type VisitTimeValue,
  visitTimeOf,
  visitTimeRule,
} from "../../components/VisitTimeInput.tsx";
import { useLang } from "../../i18n/index.ts";
import { accountOf, ExpiresCell, personColumns, terminalColumn, VisitTimeCell } from "./parts.tsx";

/**
 * Valid visit times (POST /admin/select infoType 3): set a custom time (at least 10 minutes,
 * PUT /device/v1/visit/time), forever, or clear it (POST /admin/zeroVisitTime) after a
 * confirmation. Clearing a grant that already ran out answers 01010408 (shown as is).
 */
export function ValidVisitTab({ machineId }: { machineId: number }) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<WhiteListEntry | null>(null);
  const list = useQuery({
    queryKey: queryKeys.authority(machineId, "valid"),
    queryFn: () => authorityApi.validVisits(machineId),
    meta: { silent: true },
  });
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: queryKeys.authorityAll(machineId) });
  const clear = useMutation({
    mutationFn: (visitTimeId: number) =>
      authorityApi.zeroVisitTime({ visitAlidTimeID: visitTimeId, machineID: machineId }),
  });

  const columns: TableProps<WhiteListEntry>["columns"] = [
    ...personColumns<WhiteListEntry>(t),
    terminalColumn(t),
    {
      title: t("authority.timeLeft"),
      dataIndex: "visitTime",
      width: 140,
      render: (minutes: number) => <VisitTimeCell minutes={minutes} />,
    },
    {
      title: t("authority.expiresAt"),
      key: "expires",
      width: 160,
      render: (_: unknown, e) => <ExpiresCell value={e.expires_at} minutes={e.visitTime} />,
    },
    {
      title: t("common.action"),
      key: "action",
      fixed: "right",
      width: 150,
      render: (_: unknown, e) => (
        <Space size={0}>
          <Button
            type="link"
            size="small"
            onClick={() => setEditing(e)}
            data-testid={`auth-visit-set-${e.visitTimeId}`}
          >
            {t("authority.setTime")}
          </Button>
          <ConfirmActionLink
            title={t("authority.clearTimeConfirm", { name: e.name || accountOf(e) })}
            description={<span className="kw-popconfirm-text">{t("authority.clearTimeHint")}</span>}
            okText={t("authority.clearTime")}
            label={t("authority.clearTime")}
            testId={`auth-visit-clear-${e.visitTimeId}`}
            confirmTestId="auth-visit-clear-confirm"
            action={() => clear.mutateAsync(e.visitTimeId)}
            successText={t("authority.timeCleared")}
            onDone={refresh}
          />
        </Space>
      ),
    },
  ];

  return (
    <div data-testid="auth-valid">
      <Typography.Paragraph type="secondary">{t("authority.validHint")}</Typography.Paragraph>
      <Table<WhiteListEntry>
        rowKey="visitTimeId"
        size="small"
        columns={columns}
        dataSource={list.data?.list ?? []}
        loading={list.isFetching}
        scroll={{ x: 760 }}
        pagination={{ pageSize: 10, hideOnSinglePage: true, showSizeChanger: false }}
        onRow={(e) =>
          ({
            "data-testid": `auth-valid-row-${e.visitTimeId}`,
            "data-user": e.user_id,
          }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: (
            <ListEmpty
              error={list.isError ? list.error.message : null}
              onRetry={() => list.refetch()}
              description={t("authority.noValid")}
            />
          ),
        }}
      />
      <SetVisitTimeModal
        machineId={machineId}
        entry={editing}
        onClose={() => setEditing(null)}
        onDone={refresh}
      />
    </div>
  );
}

function SetVisitTimeModal(props: {
  machineId: number;
  entry: WhiteListEntry | null;
  onClose: () => void;
  onDone: () => Promise<unknown>;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ visitTime: VisitTimeValue }>();
  const set = useMutation({
    mutationFn: (visitTime: number) =>
      authorityApi.setVisitTime({
        visitTimeId: props.entry?.visitTimeId ?? 0,
        machineID: props.machineId,
        visitTime,
      }),
  });
  const entry = props.entry;
  return (
    <FormModal
      title={t("authority.setTimeTitle", { name: entry ? entry.name || accountOf(entry) : "" })}
      open={entry !== null}
      onClose={props.onClose}
      form={form}
      submitting={set.isPending}
      submitTestId="auth-visit-submit"
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ visitTime: DEFAULT_VISIT_TIME }}
        onFinish={async (values) => {
          try {
            await set.mutateAsync(visitTimeOf(values.visitTime));
          } catch {
            return;
          }
          message.success(t("authority.timeSet"));
          props.onClose();
          await props.onDone();
        }}
      >
        <Form.Item
          name="visitTime"
          label={t("authority.visitTime")}
          rules={[visitTimeRule]}
          extra={t("access.time.hint")}
        >
          <VisitTimeInput testId="auth-visit-time" />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
