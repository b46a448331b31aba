import { DeleteOutlined } from "@ant-design/icons";
import {
  type EnterpriseMember,
  MEMBER_KINDS,
  type MemberKind,
  memberAddBody,
} from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Form, Select, Switch, Table, type TableProps, Tag } from "antd";
import { enterpriseAdminApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { AccountAddForm } from "../../components/AccountAddForm.tsx";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";

const addForm = memberAddBody.omit({ eid: true });
const _testId = (id: string) => ({ "data-testid": id }) as object;

/** Business codes of adding a member that belong to the account field. */
const ACCOUNT_CODES = ["07010109", "06010301"];

export const KIND_COLORS: Record<MemberKind, string> = { member: "blue", maintenance: "purple" };

/** Members of an enterprise: add by account (phone or e-mail) with kind and admin flag, remove. */
export function MembersPanel({ eid }: { eid: number }) {
  const { t } = useLang();
  const queryClient = useQueryClient();

  const members = useQuery({
    queryKey: queryKeys.adminMembers(eid),
    queryFn: () => enterpriseAdminApi.members(eid),
    meta: { silent: true },
  });
  const add = useMutation({ mutationFn: enterpriseAdminApi.addMember, meta: { silent: true } });
  const remove = useMutation({ mutationFn: enterpriseAdminApi.removeMember });

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.adminMembers(eid) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.enterpriseAll(eid) }),
    ]);

  const kindLabel = (kind: MemberKind) =>
    kind === "maintenance" ? t("enterprise.kindMaintenance") : t("enterprise.kindMember");

  const columns: TableProps<EnterpriseMember>["columns"] = [
    { title: t("enterprise.memberName"), dataIndex: "name", ellipsis: true },
    { title: t("field.account"), dataIndex: "account", ellipsis: true },
    {
      title: t("enterprise.kind"),
      dataIndex: "kind",
      width: 130,
      render: (kind: MemberKind) => <Tag color={KIND_COLORS[kind]}>{kindLabel(kind)}</Tag>,
    },
    {
      title: t("enterprise.role"),
      dataIndex: "isAdmin",
      width: 110,
      render: (isAdmin: 0 | 1) =>
        isAdmin === 1 ? <Tag color="gold">{t("enterprise.admin")}</Tag> : t("enterprise.member"),
    },
    {
      title: t("common.action"),
      key: "action",
      width: 90,
      align: "center",
      render: (_: unknown, m) => (
        <ConfirmActionLink
          title={t("enterprise.removeMemberConfirm", { name: m.name || m.account })}
          okText={t("common.remove")}
          label={t("common.remove")}
          icon={<DeleteOutlined />}
          testId={`bo-member-remove-${m.userId}-${m.kind}`}
          confirmTestId="bo-member-remove-confirm"
          action={() => remove.mutateAsync({ eid, userId: m.userId, kind: m.kind })}
          successText={t("enterprise.memberRemoved")}
          onDone={refresh}
        />
      ),
    },
  ];

  return (
    <div data-testid="members-panel">
      <AccountAddForm
        schema={addForm}
        accountCodes={ACCOUNT_CODES}
        add={(body) => add.mutateAsync({ ...body, eid })}
        pending={add.isPending}
        successText={t("enterprise.memberAdded")}
        submitLabel={t("enterprise.addMember")}
        placeholder={t("enterprise.accountPlaceholder")}
        testId="bo-member"
        initialValues={{ kind: "member", isAdmin: false }}
        extra={(rule) => (
          <>
            <Form.Item name="kind" rules={[rule("kind")]}>
              <Select
                data-testid="bo-member-kind"
                className="kw-w-140"
                options={MEMBER_KINDS.map((kind) => ({ value: kind, label: kindLabel(kind) }))}
              />
            </Form.Item>
            <Form.Item name="isAdmin" valuePropName="checked" label={t("enterprise.admin")}>
              <Switch data-testid="bo-member-admin" />
            </Form.Item>
          </>
        )}
        onAdded={refresh}
      />
      <div data-testid="bo-member-table">
        <Table<EnterpriseMember>
          rowKey={(m) => `${m.userId}-${m.kind}`}
          size="small"
          columns={columns}
          dataSource={members.data?.list ?? []}
          loading={members.isFetching}
          pagination={{ pageSize: 10, hideOnSinglePage: true, showSizeChanger: false }}
          onRow={(m) =>
            ({
              "data-testid": `bo-member-row-${m.userId}-${m.kind}`,
            }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <ListEmpty
                error={members.isError ? members.error.message : null}
                onRetry={() => members.refetch()}
                description={t("enterprise.noMembers")}
              />
            ),
          }}
        />
      </div>
    </div>
  );
}
