import { type AdminEntry, adminPushBody, HW, LEVEL } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Space, Switch, Table, type TableProps, Typography } from "antd";
import { authorityApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { AccountAddForm } from "../../components/AccountAddForm.tsx";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { IdentityTag } from "../../features/device/MachineParts.tsx";
import { useLang } from "../../i18n/index.ts";
import { useAppStore } from "../../store/app.ts";
import { accountOf, ConfirmLink } from "./parts.tsx";

const addForm = adminPushBody.pick({ account: true, countryCode: true });
/** Adding a Bkey: codes that belong to the account field (SPEC §8). */
const ACCOUNT_CODES = [HW.BKEY_ACCOUNT_NOT_FOUND.code, HW.BKEY_EXISTS.code];

/**
 * The Bkey tab: the device's Akey, Bkeys, ordinary users and visitors (POST /admin/select
 * infoType 2). Add a Bkey by account; make a user or visitor a Bkey, a Bkey an ordinary user;
 * read-only / read-write and alarm / no-alarm per member; black-list or remove a member.
 */
export function MembersTab({ machineId }: { machineId: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const me = useAppStore((s) => s.userId);

  const members = useQuery({
    queryKey: queryKeys.authority(machineId, "members"),
    queryFn: () => authorityApi.members(machineId),
    meta: { silent: true },
  });
  const refresh = () =>
    queryClient.invalidateQueries({ queryKey: queryKeys.authorityAll(machineId) });
  const add = useMutation({ mutationFn: authorityApi.addBkey, meta: { silent: true } });
  const level = useMutation({
    mutationFn: (input: { entry: AdminEntry; limit: 1 | 2 }) =>
      authorityApi.updateLevel({ id: input.entry.id, machineID: machineId, limit: input.limit }),
    onSuccess: async (_r, input) => {
      message.success(
        input.limit === LEVEL.bkey ? t("authority.upgraded") : t("authority.downgraded"),
      );
      await refresh();
    },
  });
  const write = useMutation({
    mutationFn: (input: { userId: number; write: 0 | 1 }) =>
      authorityApi.setWrite({ machineID: machineId, ...input }),
    onSuccess: refresh,
  });
  const alarm = useMutation({
    mutationFn: (input: { userId: number; alarm: 0 | 1 }) =>
      authorityApi.setAlarm({ machineID: machineId, ...input }),
    onSuccess: refresh,
  });
  const block = useMutation({
    mutationFn: (userId: number) => authorityApi.blackListAdd({ machineID: machineId, userId }),
  });
  const remove = useMutation({
    mutationFn: (id: number) => authorityApi.removeMember({ machineID: machineId, id }),
  });

  const columns: TableProps<AdminEntry>["columns"] = [
    {
      title: t("authority.name"),
      dataIndex: "name",
      ellipsis: true,
      render: (name: string, m) => (
        <span>
          {name || "-"}
          {m.user_id === me && (
            <Typography.Text type="secondary"> {t("authority.you")}</Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("field.account"),
      key: "account",
      ellipsis: true,
      render: (_: unknown, m) => accountOf(m),
    },
    {
      title: t("authority.identity"),
      dataIndex: "role",
      width: 96,
      render: (role: AdminEntry["role"]) => <IdentityTag identity={role} />,
    },
    {
      title: t("authority.access"),
      key: "write",
      width: 120,
      render: (_: unknown, m) => (
        <Switch
          size="small"
          checked={m.write === 1}
          // The Akey and Bkeys always read and write; the level is for users and visitors.
          disabled={m.role === "akey" || m.role === "bkey"}
          loading={write.isPending && write.variables?.userId === m.user_id}
          checkedChildren={t("authority.readWrite")}
          unCheckedChildren={t("authority.readOnly")}
          onChange={(next) => write.mutate({ userId: m.user_id, write: next ? 1 : 0 })}
          data-testid={`auth-write-${m.user_id}`}
        />
      ),
    },
    {
      title: t("authority.alarms"),
      key: "alarm",
      width: 110,
      render: (_: unknown, m) => (
        <Switch
          size="small"
          checked={m.alarm === 1}
          loading={alarm.isPending && alarm.variables?.userId === m.user_id}
          checkedChildren={t("authority.alarmOn")}
          unCheckedChildren={t("authority.alarmOff")}
          onChange={(next) => alarm.mutate({ userId: m.user_id, alarm: next ? 1 : 0 })}
          data-testid={`auth-alarm-${m.user_id}`}
        />
      ),
    },
    {
      title: t("common.action"),
      key: "action",
      fixed: "right",
      width: 250,
      render: (_: unknown, m) =>
        m.role === "akey" ? (
          <Typography.Text type="secondary">{t("authority.owner")}</Typography.Text>
        ) : (
          <Space size={0} wrap>
            {m.role === "bkey" ? (
              <ConfirmLink
                title={t("authority.downgradeConfirm", { name: m.name || accountOf(m) })}
                okText={t("authority.downgrade")}
                label={t("authority.downgrade")}
                testId={`auth-downgrade-${m.user_id}`}
                confirmTestId="auth-level-confirm"
                onConfirm={() => level.mutate({ entry: m, limit: LEVEL.ordinary })}
              />
            ) : (
              <ConfirmLink
                title={t("authority.upgradeConfirm", { name: m.name || accountOf(m) })}
                okText={t("authority.upgrade")}
                label={t("authority.upgrade")}
                testId={`auth-upgrade-${m.user_id}`}
                confirmTestId="auth-level-confirm"
                onConfirm={() => level.mutate({ entry: m, limit: LEVEL.bkey })}
              />
            )}
            <ConfirmActionLink
              title={t("authority.blockConfirm", { name: m.name || accountOf(m) })}
              description={<span className="kw-popconfirm-text">{t("authority.blockHint")}</span>}
              okText={t("authority.block")}
              label={t("authority.block")}
              testId={`auth-block-${m.user_id}`}
              confirmTestId="auth-block-confirm"
              action={() => block.mutateAsync(m.user_id)}
              successText={t("authority.blocked")}
              onDone={refresh}
            />
            <ConfirmActionLink
              title={t("authority.removeConfirm", { name: m.name || accountOf(m) })}
              okText={t("common.remove")}
              label={t("common.remove")}
              testId={`auth-remove-${m.user_id}`}
              confirmTestId="auth-remove-confirm"
              action={() => remove.mutateAsync(m.id)}
              successText={t("authority.removed")}
              onDone={refresh}
            />
          </Space>
        ),
    },
  ];

  return (
    <div data-testid="auth-members">
      <AccountAddForm
        schema={addForm}
        accountCodes={ACCOUNT_CODES}
        add={(body) => add.mutateAsync({ machineID: machineId, ...body })}
        pending={add.isPending}
        successText={t("authority.bkeyAdded")}
        submitLabel={t("authority.addBkey")}
        placeholder={t("enterprise.accountPlaceholder")}
        testId="auth-bkey"
        onAdded={refresh}
      />
      <Table<AdminEntry>
        rowKey="id"
        size="small"
        columns={columns}
        dataSource={members.data?.list ?? []}
        loading={members.isFetching}
        scroll={{ x: 880 }}
        pagination={{ pageSize: 10, hideOnSinglePage: true, showSizeChanger: false }}
        onRow={(m) =>
          ({
            "data-testid": `auth-member-${m.user_id}`,
            "data-role": m.role,
          }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: (
            <ListEmpty
              error={members.isError ? members.error.message : null}
              onRetry={() => members.refetch()}
              description={t("authority.noMembers")}
            />
          ),
        }}
      />
    </div>
  );
}
