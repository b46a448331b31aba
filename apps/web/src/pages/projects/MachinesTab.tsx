import { PlusOutlined } from "@ant-design/icons";
import { projectMachineBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Badge,
  Button,
  Flex,
  Form,
  Select,
  Space,
  Statistic,
  Table,
  type TableProps,
  Typography,
} from "antd";
import { useMemo, useState } from "react";
import { enterprisesApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import {
  type ProjectListQuery,
  type ProjectMachineView,
  type ProjectView,
  projectsApi,
} from "../../api/projects.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { FormModal } from "../../components/FormModal.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { ConnectButton, useConnect } from "../../features/device/ConnectButton.tsx";
import { ScreenButton } from "../../features/device/ScreenButton.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { isOwner } from "./parts.tsx";

/**
 * The project's machines with their online state; Connect where the project allows visit
 * URLs; the owner adds a device of the enterprise's list of the project's type (+1 machine,
 * +100,000 data count) and removes one.
 */
export function MachinesTab({ project, query }: { project: ProjectView; query: ProjectListQuery }) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const owner = isOwner(project.limit_authority);
  const [adding, setAdding] = useState(false);
  const machines = useQuery({
    queryKey: queryKeys.projectPart(project.id, "machines"),
    queryFn: () => projectsApi.machines(project.id),
    meta: { silent: true },
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.projectsAll });
  const remove = useMutation({ mutationFn: projectsApi.removeMachine });
  const { connect, isPending: connecting } = useConnect();
  const visits = project.enable_get_visit_url === 1;

  const columns: TableProps<ProjectMachineView>["columns"] = [
    {
      title: t("project.machineName"),
      dataIndex: "machine_name",
      ellipsis: true,
      render: (v: string, m) => v || m.machine_code,
    },
    { title: t("project.machineCode"), dataIndex: "machine_code", width: 170, ellipsis: true },
    {
      title: t("project.state"),
      dataIndex: "online",
      width: 90,
      render: (online: boolean) => (
        <Badge
          status={online ? "success" : "default"}
          text={online ? t("project.online") : t("project.offline")}
        />
      ),
    },
  ];
  if (visits || owner) {
    columns.push({
      title: t("common.action"),
      key: "action",
      width: 210,
      render: (_: unknown, m) => (
        <Space size={0}>
          {visits && (
            <ConnectButton
              machine={m}
              onConnect={(target) => void connect(target, undefined, project.id)}
              loading={connecting(m.machine_id)}
              testId={`project-machine-connect-${m.machine_id}`}
            />
          )}
          {visits && (
            <ScreenButton
              machine={m}
              scope={{ projectId: project.id }}
              testId={`project-machine-screen-${m.machine_id}`}
            />
          )}
          {owner && (
            <ConfirmActionLink
              title={t("project.removeMachineConfirm", { name: m.machine_name || m.machine_code })}
              description={
                <span className="kw-popconfirm-text">{t("project.removeMachineHint")}</span>
              }
              okText={t("common.remove")}
              label={t("common.remove")}
              testId={`project-machine-remove-${m.machine_id}`}
              confirmTestId="project-machine-remove-confirm"
              loading={remove.isPending && remove.variables?.machineId === m.machine_id}
              action={() => remove.mutateAsync({ id: project.id, machineId: m.machine_id })}
              successText={t("project.machineRemoved")}
              onDone={refresh}
            />
          )}
        </Space>
      ),
    });
  }

  return (
    <div data-testid="project-machines">
      <Flex align="center" gap={32} className="kw-mb" wrap>
        <Statistic
          title={t("project.machines")}
          value={project.machine_length}
          data-testid="project-machines-stat"
        />
        <Statistic title={t("project.reportCount")} value={project.report_count} />
        <Statistic title={t("project.availableCount")} value={project.available_count} />
        <span className="kw-grow" />
        {owner && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            onClick={() => setAdding(true)}
            data-testid="project-machine-add"
          >
            {t("project.addMachine")}
          </Button>
        )}
      </Flex>
      <Table<ProjectMachineView>
        rowKey="machine_id"
        size="small"
        columns={columns}
        dataSource={machines.data?.list ?? []}
        loading={machines.isFetching}
        pagination={{ pageSize: 10, hideOnSinglePage: true, showSizeChanger: false }}
        onRow={(m) =>
          ({
            "data-testid": `project-machine-${m.machine_code}`,
            "data-online": m.online ? 1 : 0,
          }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: (
            <ListEmpty
              error={machines.isError ? machines.error.message : null}
              onRetry={() => machines.refetch()}
              description={t("project.noMachines")}
            />
          ),
        }}
      />
      {owner && (
        <AddMachineModal
          open={adding}
          project={project}
          query={query}
          taken={machines.data?.list ?? []}
          onClose={() => setAdding(false)}
          onAdded={refresh}
        />
      )}
    </div>
  );
}

const addForm = projectMachineBody.pick({ machineId: true });

/** Picks a device of the enterprise's list of the project's type that is not in it yet. */
function AddMachineModal(props: {
  open: boolean;
  project: ProjectView;
  query: ProjectListQuery;
  taken: ProjectMachineView[];
  onClose: () => void;
  onAdded: () => Promise<unknown>;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(addForm);
  const deviceQuery = { eid: props.query.eid, type: props.query.type };
  const devices = useQuery({
    queryKey: queryKeys.enterpriseDevices(deviceQuery),
    queryFn: () => enterprisesApi.deviceList(deviceQuery),
    enabled: props.open,
  });
  const add = useMutation({ mutationFn: projectsApi.addMachine });
  const options = useMemo(() => {
    const inProject = new Set(props.taken.map((m) => m.machine_id));
    return (devices.data?.list ?? [])
      .filter((m) => !inProject.has(m.machine_id))
      .map((m) => ({
        value: m.machine_id,
        search: `${m.machine_name} ${m.machine_code}`.toLowerCase(),
        label: (
          <Flex justify="space-between" gap={8}>
            <span>{m.machine_name || m.machine_code}</span>
            <Typography.Text type="secondary">{m.machine_code}</Typography.Text>
          </Flex>
        ),
      }));
  }, [devices.data, props.taken]);
  return (
    <FormModal
      title={t("project.addMachine")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={add.isPending}
      submitTestId="project-machine-submit"
      submitText={t("project.addMachine")}
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        onFinish={async (values) => {
          const { machineId } = parseForm(addForm, values);
          try {
            await add.mutateAsync({ id: props.project.id, machineId });
          } catch {
            return;
          }
          message.success(t("project.machineAdded"));
          props.onClose();
          await props.onAdded();
        }}
      >
        <Form.Item
          name="machineId"
          label={t("project.machinePick")}
          rules={[rule("machineId")]}
          extra={t("project.addMachineHint")}
        >
          <Select
            showSearch={{
              filterOption: (input, option) =>
                (option?.search ?? "").includes(input.trim().toLowerCase()),
            }}
            loading={devices.isFetching}
            options={options}
            placeholder={t("project.machinePickPlaceholder")}
            notFoundContent={devices.isFetching ? undefined : t("project.noFreeDevices")}
            data-testid="project-machine-select"
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
