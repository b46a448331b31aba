import { CheckOutlined, CloseOutlined, EditOutlined, PlusOutlined } from "@ant-design/icons";
import {
  type DeviceGroup,
  GROUP_LIMIT,
  groupCreateBody,
  groupNameField,
  validationMessage,
} from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Button,
  Empty,
  Flex,
  Form,
  Input,
  Modal,
  Space,
  Table,
  type TableProps,
  Typography,
} from "antd";
import { useState } from "react";
import { devicesApi } from "../../api/devices.ts";
import { ApiError } from "../../api/errors.ts";
import { useGroups } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

/** Group management: list with device counts, create, inline rename, delete (SPEC §2). */
export function GroupsModal(props: { open: boolean; onClose: () => void }) {
  const { t, lang } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const groups = useGroups(props.open);
  const [form] = Form.useForm();
  const rule = useZodRule(groupCreateBody);
  const [editing, setEditing] = useState<{ id: number; name: string; error?: string } | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });

  const create = useMutation({ mutationFn: devicesApi.createGroup, meta: { silent: true } });
  const rename = useMutation({ mutationFn: devicesApi.renameGroup, meta: { silent: true } });
  const remove = useMutation({ mutationFn: devicesApi.deleteGroup });

  const list = groups.data?.list ?? [];
  const full = list.length >= GROUP_LIMIT;

  const saveRename = async () => {
    if (!editing) return;
    const parsed = groupNameField.safeParse(editing.name);
    if (!parsed.success) {
      const key = parsed.error.issues[0]?.message ?? "v.groupName";
      setEditing({ ...editing, error: validationMessage(key, lang) });
      return;
    }
    try {
      await rename.mutateAsync({ id: editing.id, name: parsed.data });
    } catch (error) {
      if (error instanceof ApiError && error.kind === "business") {
        setEditing({ ...editing, error: error.message });
      } else showError(error);
      return;
    }
    setEditing(null);
    message.success(t("group.renamed"));
    await refresh();
  };

  const columns: TableProps<DeviceGroup>["columns"] = [
    {
      title: t("group.name"),
      dataIndex: "name",
      render: (name: string, group) =>
        editing?.id === group.id ? (
          <Flex vertical gap={2}>
            <Space.Compact>
              <Input
                size="small"
                autoFocus
                value={editing.name}
                status={editing.error ? "error" : undefined}
                onChange={(e) => setEditing({ ...editing, name: e.target.value, error: undefined })}
                onPressEnter={saveRename}
                onKeyDown={(e) => e.key === "Escape" && setEditing(null)}
                data-testid="group-rename-input"
                style={{ width: 180 }}
              />
              <Button
                size="small"
                type="primary"
                icon={<CheckOutlined />}
                loading={rename.isPending}
                onClick={saveRename}
                aria-label={t("common.save")}
                data-testid="group-rename-save"
              />
              <Button
                size="small"
                icon={<CloseOutlined />}
                onClick={() => setEditing(null)}
                aria-label={t("common.cancel")}
              />
            </Space.Compact>
            {editing.error && (
              <Typography.Text type="danger" className="kw-small">
                {editing.error}
              </Typography.Text>
            )}
          </Flex>
        ) : (
          <Space size={4}>
            <span>{name}</span>
            <Button
              type="text"
              size="small"
              icon={<EditOutlined />}
              aria-label={t("group.rename")}
              onClick={() => setEditing({ id: group.id, name })}
              data-testid={`group-rename-${group.id}`}
            />
          </Space>
        ),
    },
    {
      title: t("group.deviceCount"),
      dataIndex: "deviceCount",
      width: 110,
      align: "center",
    },
    {
      title: t("common.action"),
      key: "action",
      width: 90,
      align: "center",
      render: (_: unknown, group) => (
        <ConfirmActionLink
          title={t("group.deleteConfirm", { name: group.name })}
          description={group.deviceCount > 0 ? t("group.deleteNotEmpty") : undefined}
          okText={t("common.delete")}
          label={t("common.delete")}
          loading={remove.isPending && remove.variables === group.id}
          testId={`group-delete-${group.id}`}
          confirmTestId="group-delete-confirm"
          action={() => remove.mutateAsync(group.id)}
          successText={t("group.deleted")}
          onDone={refresh}
        />
      ),
    },
  ];

  return (
    <Modal
      title={t("group.manageTitle")}
      open={props.open}
      onCancel={props.onClose}
      destroyOnHidden
      width={560}
      footer={
        <Button onClick={props.onClose} data-testid="groups-close">
          {t("common.close")}
        </Button>
      }
    >
      <div data-testid="groups-panel">
        <Form
          form={form}
          layout="inline"
          requiredMark={false}
          className="kw-group-create"
          onFinish={async (values) => {
            const body = parseForm(groupCreateBody, values);
            try {
              await create.mutateAsync(body);
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
          <Form.Item name="name" rules={[rule("name")]} className="kw-grow">
            <Input
              placeholder={t("group.namePlaceholder")}
              disabled={full}
              data-testid="group-create-name"
              maxLength={20}
            />
          </Form.Item>
          <Form.Item className="kw-mr0">
            <Button
              type="primary"
              htmlType="submit"
              icon={<PlusOutlined />}
              loading={create.isPending}
              disabled={full}
              data-testid="group-create-submit"
            >
              {t("group.create")}
            </Button>
          </Form.Item>
        </Form>
        <Typography.Paragraph type="secondary" className="kw-mt-sm">
          {full
            ? t("group.limitReached", { limit: GROUP_LIMIT })
            : t("group.count", { count: list.length, limit: GROUP_LIMIT })}
        </Typography.Paragraph>
        <Table<DeviceGroup>
          rowKey="id"
          size="small"
          columns={columns}
          dataSource={list}
          loading={groups.isFetching}
          pagination={false}
          scroll={{ y: 360 }}
          onRow={(group) =>
            ({ "data-testid": `group-row-${group.id}` }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: groups.isError ? (
              <Empty description={t("common.loadFailed")}>
                <Button onClick={() => groups.refetch()}>{t("common.retry")}</Button>
              </Empty>
            ) : (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("group.empty")} />
            ),
          }}
        />
      </div>
    </Modal>
  );
}
