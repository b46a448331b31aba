import { DeleteOutlined, PlusOutlined } from "@ant-design/icons";
import { enterpriseDeviceAssignBody, type Machine } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Form, Input, Segmented, Select, Table, type TableProps } from "antd";
import { useState } from "react";
import {
  type EnterpriseDeviceType,
  enterpriseAdminApi,
  enterprisesApi,
} from "../../api/enterprises.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useMachineColumns } from "../../features/device/machineColumns.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

const assignForm = enterpriseDeviceAssignBody.omit({ eid: true });
const _testId = (id: string) => ({ "data-testid": id }) as object;
const CODE_ERRORS = ["04010102", "06010401"];

/**
 * The devices an enterprise holds, type 1 (its own) and 2 (maintained). With `canManage`
 * (operator) devices are assigned by machine code and removed. Every admin puts a device in
 * one of the enterprise's groups (or none) with the row's group select.
 */
export function AdminDevicesPanel({ eid, canManage }: { eid: number; canManage: boolean }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [type, setType] = useState<EnterpriseDeviceType>(1);
  const [form] = Form.useForm();
  const rule = useZodRule(assignForm);

  const devices = useQuery({
    queryKey: queryKeys.adminDevices(eid, type),
    queryFn: () => enterpriseAdminApi.devices(eid, type),
    meta: { silent: true },
  });
  const assign = useMutation({
    mutationFn: enterpriseAdminApi.assignDevice,
    meta: { silent: true },
  });
  const remove = useMutation({ mutationFn: enterpriseAdminApi.removeDevice });
  const groups = useQuery({
    queryKey: queryKeys.enterpriseGroups(eid),
    queryFn: () => enterprisesApi.groups(eid),
    meta: { silent: true },
  });
  const setGroup = useMutation({ mutationFn: enterpriseAdminApi.setDeviceGroup });
  const groupOptions = [
    { value: 0, label: t("group.none") },
    ...(groups.data?.list ?? []).map((g) => ({ value: g.id, label: g.name })),
  ];

  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.adminAll(eid) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.enterpriseAll(eid) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.registryAll }),
    ]);

  const typeOptions = [
    { value: 1, label: t("enterprise.typeEnterprise") },
    { value: 2, label: t("enterprise.typeMaintenance") },
  ];

  const baseColumns = useMachineColumns({ name: 220, code: 190, state: 100 });
  const columns: TableProps<Machine>["columns"] = [
    ...baseColumns,
    { title: t("device.model"), dataIndex: "model", width: 120, render: (v: string) => v || "-" },
    {
      title: t("enterprise.group"),
      dataIndex: "groups",
      width: 170,
      render: (groupId: number, m: Machine) => (
        <Select<number>
          size="small"
          className="kw-w-140"
          value={groupId || 0}
          options={
            groupId && !groupOptions.some((o) => o.value === groupId)
              ? [...groupOptions, { value: groupId, label: m.group_name || `#${groupId}` }]
              : groupOptions
          }
          loading={setGroup.isPending && setGroup.variables?.machineId === m.machine_id}
          disabled={setGroup.isPending}
          aria-label={t("group.move")}
          onChange={async (next) => {
            try {
              await setGroup.mutateAsync({ eid, machineId: m.machine_id, type, groupId: next });
            } catch {
              return;
            }
            message.success(t("enterprise.groupSet"));
            await refresh();
          }}
          data-testid={`ent-device-group-${m.machine_id}`}
        />
      ),
    },
    {
      title: t("device.created"),
      dataIndex: "created_at",
      width: 170,
      render: (v: string) => formatDateTime(v),
    },
    ...(canManage
      ? [
          {
            title: t("common.action"),
            key: "action",
            width: 90,
            align: "center" as const,
            render: (_: unknown, m: Machine) => (
              <ConfirmActionLink
                title={t("enterprise.removeDeviceConfirm", { code: m.machine_code })}
                okText={t("common.remove")}
                label={t("common.remove")}
                icon={<DeleteOutlined />}
                testId={`bo-device-remove-${m.machine_id}`}
                confirmTestId="bo-device-remove-confirm"
                action={() => remove.mutateAsync({ eid, machineId: m.machine_id, type })}
                successText={t("enterprise.deviceRemoved")}
                onDone={refresh}
              />
            ),
          },
        ]
      : []),
  ];

  return (
    <div data-testid="admin-devices-panel">
      {canManage && (
        <Form
          form={form}
          layout="inline"
          requiredMark={false}
          className="kw-inline-form"
          initialValues={{ type: 1 }}
          onFinish={async (values) => {
            const body = parseForm(assignForm, values);
            try {
              await assign.mutateAsync({ ...body, eid });
            } catch (error) {
              if (error instanceof ApiError && CODE_ERRORS.some((code) => error.is(code))) {
                form.setFields([{ name: "machineCode", errors: [error.message] }]);
              } else showError(error);
              return;
            }
            message.success(t("enterprise.deviceAssigned", { code: body.machineCode }));
            form.resetFields(["machineCode"]);
            setType(body.type === 2 ? 2 : 1);
            await refresh();
          }}
        >
          <Form.Item name="machineCode" rules={[rule("machineCode")]}>
            <Input
              placeholder={t("device.codePlaceholder")}
              data-testid="bo-device-code"
              className="kw-w-220 kw-code-input"
              autoComplete="off"
            />
          </Form.Item>
          <Form.Item name="type" rules={[rule("type")]}>
            <Select data-testid="bo-device-type" className="kw-w-160" options={typeOptions} />
          </Form.Item>
          <Form.Item>
            <Button
              type="primary"
              htmlType="submit"
              icon={<PlusOutlined />}
              loading={assign.isPending}
              data-testid="bo-device-submit"
            >
              {t("enterprise.assignDevice")}
            </Button>
          </Form.Item>
        </Form>
      )}
      <Segmented<EnterpriseDeviceType>
        value={type}
        onChange={setType}
        className="kw-mb"
        options={typeOptions.map((o) => ({
          value: o.value as EnterpriseDeviceType,
          label: <span data-testid={`admin-devices-type-${o.value}`}>{o.label}</span>,
        }))}
      />
      <div data-testid="bo-device-table">
        <Table<Machine>
          rowKey="machine_id"
          size="small"
          columns={columns}
          dataSource={devices.data?.list ?? []}
          loading={devices.isFetching}
          scroll={{ x: 800 }}
          pagination={{ pageSize: 20, hideOnSinglePage: true, showSizeChanger: false }}
          onRow={(m) =>
            ({
              "data-testid": `bo-device-row-${m.machine_code}`,
            }) as React.HTMLAttributes<HTMLElement>
          }
          locale={{
            emptyText: (
              <ListEmpty
                error={devices.isError ? devices.error.message : null}
                onRetry={() => devices.refetch()}
                description={
                  type === 2 ? t("enterprise.emptyMaintenance") : t("enterprise.emptyDevices")
                }
              />
            ),
          }}
        />
      </div>
    </div>
  );
}
