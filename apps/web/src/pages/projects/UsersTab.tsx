import { HW, PROJECT_LEVEL, projectAddUserBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Space, Table, type TableProps, Typography } from "antd";
import { queryKeys } from "../../api/keys.ts";
import { type ProjectUserView, type ProjectView, projectsApi } from "../../api/projects.ts";
import { AccountAddForm } from "../../components/AccountAddForm.tsx";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { useAppStore } from "../../store/app.ts";
import { accountOf } from "../authority/parts.tsx";
import { isOwner, LevelTag } from "./parts.tsx";

const addForm = projectAddUserBody.pick({ account: true, countryCode: true });
/** Adding a user: the SPEC §8 codes that belong to the account field. */
const ACCOUNT_CODES = [HW.PROJECT_USER_NOT_FOUND.code, HW.PROJECT_USER_EXISTS.code];

/**
 * The project's users (levels 3 / 2). The owner adds a user by account (+ country code for
 * a phone), removes users and transfers ownership; a level-2 user only sees the list.
 */
export function UsersTab({ project }: { project: ProjectView }) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const me = useAppStore((s) => s.userId);
  const owner = isOwner(project.limit_authority);

  const users = useQuery({
    queryKey: queryKeys.projectPart(project.id, "users"),
    queryFn: () => projectsApi.users(project.id),
    meta: { silent: true },
  });
  // The list's lengths and levels change with these: refresh the list and this project.
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.projectsAll });
  const add = useMutation({ mutationFn: projectsApi.addUser, meta: { silent: true } });
  const remove = useMutation({ mutationFn: projectsApi.delUser });
  const transfer = useMutation({ mutationFn: projectsApi.transfer });

  const columns: TableProps<ProjectUserView>["columns"] = [
    {
      title: t("authority.name"),
      dataIndex: "name",
      ellipsis: true,
      render: (name: string, u) => (
        <span>
          {name || "-"}
          {u.user_id === me && (
            <Typography.Text type="secondary"> {t("project.you")}</Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: t("field.account"),
      key: "account",
      ellipsis: true,
      render: (_: unknown, u) => (u.phone ? `+${u.country_code} ${u.phone}` : accountOf(u)),
    },
    {
      title: t("project.userLevel"),
      dataIndex: "limit_authority",
      width: 110,
      render: (v: number) => <LevelTag level={v} />,
    },
  ];
  if (owner) {
    columns.push({
      title: t("common.action"),
      key: "action",
      width: 220,
      render: (_: unknown, u) =>
        u.limit_authority === PROJECT_LEVEL.owner ? null : (
          <Space size={0}>
            <ConfirmActionLink
              title={t("project.transferConfirm", { name: u.name || accountOf(u) })}
              description={<span className="kw-popconfirm-text">{t("project.transferHint")}</span>}
              okText={t("project.transfer")}
              label={t("project.transfer")}
              testId={`project-transfer-${u.user_id}`}
              confirmTestId="project-transfer-confirm"
              loading={transfer.isPending && transfer.variables?.transferUser === u.user_id}
              action={() => transfer.mutateAsync({ id: project.id, transferUser: u.user_id })}
              successText={t("project.transferred")}
              onDone={refresh}
            />
            <ConfirmActionLink
              title={t("project.removeUserConfirm", { name: u.name || accountOf(u) })}
              okText={t("project.removeUser")}
              label={t("project.removeUser")}
              testId={`project-user-remove-${u.user_id}`}
              confirmTestId="project-user-remove-confirm"
              loading={remove.isPending && remove.variables?.delUserId === u.user_id}
              action={() => remove.mutateAsync({ id: project.id, delUserId: u.user_id })}
              successText={t("project.userRemoved")}
              onDone={refresh}
            />
          </Space>
        ),
    });
  }

  return (
    <div data-testid="project-users">
      {owner && (
        <AccountAddForm
          schema={addForm}
          accountCodes={ACCOUNT_CODES}
          add={(body) => add.mutateAsync({ id: project.id, ...body })}
          pending={add.isPending}
          successText={t("project.userAdded")}
          submitLabel={t("project.addUser")}
          placeholder={t("project.accountPlaceholder")}
          testId="project-user"
          formTestId="project-user-form"
          className="kw-inline-form kw-mb"
          onAdded={refresh}
        />
      )}
      <Table<ProjectUserView>
        rowKey="user_id"
        size="small"
        columns={columns}
        dataSource={users.data?.list ?? []}
        loading={users.isFetching}
        pagination={{ pageSize: 10, hideOnSinglePage: true, showSizeChanger: false }}
        onRow={(u) =>
          ({
            "data-testid": `project-user-${u.user_id}`,
            "data-level": u.limit_authority,
          }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: (
            <ListEmpty
              error={users.isError ? users.error.message : null}
              onRetry={() => users.refetch()}
              description={t("project.noUsers")}
            />
          ),
        }}
      />
    </div>
  );
}
