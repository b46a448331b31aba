import { DeleteOutlined, PlusOutlined } from "@ant-design/icons";
import { groupCreateBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Form, Input, Table, type TableProps } from "antd";
import { type EnterpriseGroup, enterpriseAdminApi, enterprisesApi } from "../../api/enterprises.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

const _testId = (id: string) => ({ "data-testid": id }) as object;

/**
 * Device groups of an enterprise (operator, or an admin of it): create by name, delete an
 * empty group (the server refuses one that still holds devices, with its own message).
 */
export function GroupsPanel({ eid }: { eid: number }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(groupCreateBody);

  const groups = useQuery({
    queryKey: queryKeys.enterpriseGroups(eid),
    queryFn: () => enterprisesApi.groups(eid),
    meta: { silent: true },
  });
  const create = useMutation({
    mutationFn: enterpriseAdminApi.createGroup,
    meta: { silent: true },
  });
  // Not silent: a refusal (e.g. 04011201, the group still holds devices) shows the server's message.
  const remove = useMutation({ mutationFn: enterpriseAdminApi.deleteGroup });

  // The enterprise device list's group filter and the admin device rows read these groups.
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.enterpriseAll(eid) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.adminAll(eid) }),
    ]);

  const columns: TableProps<EnterpriseGroup>["columns"] = [
    { title: t("group.name"), dataIndex: "name", ellipsis: true },
    {
      title: t("common.action"),
      key: "action",
      width: 90,
      align: "center",
      render: (_: unknown, group) => (
        <ConfirmActionLink
          title={t("group.deleteConfirm", { name: group.name })}
          okText={t("common.delete")}
          label={t("common.delete")}
          icon={<DeleteOutlined />}
          loading={remove.isPending && remove.variables?.id === group.id}
          testId={`ent-group-delete-${group.id}`}
          confirmTestId="ent-group-delete-confirm"
          action={() => remove.mutateAsync({ eid, id: group.id })}
          successText={t("group.deleted")}
          onDone={refresh}
        />
      ),
    },
  ];

  return (
    <div data-testid="ent-groups-panel">
      <Form
        form={form}
        layout="inline"
        requiredMark={false}
        className="kw-inline-form"
        onFinish={async (values) => {
          const body = parseForm(groupCreateBody, values);
          try {
            await create.mutateAsync({ eid, name: body.name });
          } catch (error) {
            if (error instanceof ApiError && error.kind === "business") {
              form.setFields([{ name: "name", errors: [error.message] }]);
            } else showError(error);
            return;
          }
          form.resetFields();
          message.success(t("group.created"));
          await refresh();
        }}
      >
        <Form.Item name="name" rules={[rule("name")]}>
          <Input
            placeholder={t("group.namePlaceholder")}
            className="kw-w-220"
            autoComplete="off"
            maxLength={20}
            data-testid="ent-group-name"
          />
        </Form.Item>
        <Form.Item>
          <Button
            type="primary"
            htmlType="submit"
            icon={<PlusOutlined />}
            loading={create.isPending}
            data-testid="ent-group-create"
          >
            {t("enterprise.createGroup")}
          </Button>
        </Form.Item>
      </Form>
      <div data-testid="ent-group-table">
        <Table<EnterpriseGroup>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={groups.data?.list ?? []}
          loading={groups.isFetching}
          pagination={{ pageSize: 20, hideOnSinglePage: true, showSizeChanger: false }}
          onRow={(group) =>
            ({ "data-testid": `ent-group-row-${group.id}` }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <ListEmpty
                error={groups.isError ? groups.error.message : null}
                onRetry={() => groups.refetch()}
                description={t("enterprise.noGroups")}
              />
            ),
          }}
        />
      </div>
    </div>
  );
}
