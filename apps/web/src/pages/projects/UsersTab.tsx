import { UserAddOutlined } from "@ant-design/icons";
import { DEFAULT_COUNTRY_CODE, HW, PROJECT_LEVEL, projectAddUserBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Form, Input, Space, Table, type TableProps, Typography } from "antd";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { type ProjectUserView, type ProjectView, projectsApi } from "../../api/projects.ts";
import { showError } from "../../api/queryClient.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { CountryCodeSelect } from "../../components/CountryCodeSelect.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
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
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const me = useAppStore((s) => s.userId);
  const owner = isOwner(project.limit_authority);
  const [form] = Form.useForm();
  const rule = useZodRule(addForm);
  const account = Form.useWatch("account", form) as string | undefined;
  const isEmail = (account ?? "").includes("@");

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
        <Form
          form={form}
          layout="inline"
          requiredMark={false}
          className="kw-inline-form kw-mb"
          initialValues={{ countryCode: DEFAULT_COUNTRY_CODE }}
          onFinish={async (values) => {
            const body = parseForm(addForm, values);
            try {
              await add.mutateAsync({
                id: project.id,
                account: body.account,
                countryCode: body.account.includes("@") ? undefined : body.countryCode,
              });
            } catch (error) {
              // 08011006 no such user, 08011007 already in: the server's message on the field.
              if (error instanceof ApiError && ACCOUNT_CODES.some((code) => error.is(code))) {
                form.setFields([{ name: "account", errors: [error.message] }]);
              } else showError(error);
              return;
            }
            message.success(t("project.userAdded"));
            form.resetFields(["account"]);
            await refresh();
          }}
          data-testid="project-user-form"
        >
          {!isEmail && (
            <Form.Item name="countryCode" rules={[rule("countryCode")]}>
              <CountryCodeSelect data-testid="project-user-country" />
            </Form.Item>
          )}
          <Form.Item name="account" rules={[rule("account")]}>
            <Input
              placeholder={t("project.accountPlaceholder")}
              className="kw-w-220"
              autoComplete="off"
              data-testid="project-user-account"
            />
          </Form.Item>
          <Form.Item>
            <Button
              type="primary"
              htmlType="submit"
              icon={<UserAddOutlined />}
              loading={add.isPending}
              data-testid="project-user-submit"
            >
              {t("project.addUser")}
            </Button>
          </Form.Item>
        </Form>
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
