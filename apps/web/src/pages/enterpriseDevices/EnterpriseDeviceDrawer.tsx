import { ClockCircleOutlined } from "@ant-design/icons";
import { type EnterpriseMember, LIMITS, type Machine, maintenanceRemarkBody } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Drawer, Empty, Flex, Form, Input, Table, Tabs, Tag, Typography } from "antd";
import { type EnterpriseDeviceType, enterprisesApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { ConnectButton } from "../../features/device/ConnectButton.tsx";
import { DeviceAlarms } from "../../features/device/DeviceAlarms.tsx";
import {
  DetailRetryAlert,
  MachineDescriptions,
  MachineDrawerTitle,
} from "../../features/device/MachineDescriptions.tsx";
import { ScreenButton } from "../../features/device/ScreenButton.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";

const remarkForm = maintenanceRemarkBody.pick({ remark: true });

interface Props {
  eid: number;
  type: EnterpriseDeviceType;
  machine: Machine | null;
  onClose: () => void;
  /** "Connect" through validVisitUrl (the row carries the live state). */
  onConnect: (machine: Machine) => void;
  connecting: boolean;
}

/** An enterprise / maintenance device: machineInfo, personnel, maintenance remark (type 2). */
export function EnterpriseDeviceDrawer({
  eid,
  type,
  machine: row,
  onClose,
  onConnect,
  connecting,
}: Props) {
  const { t } = useLang();
  const id = row?.machine_id ?? 0;
  const open = row !== null;
  const info = useQuery({
    queryKey: queryKeys.enterpriseMachine(eid, id),
    queryFn: () => enterprisesApi.machineInfo(eid, id),
    enabled: open && id > 0,
    meta: { silent: true },
  });
  const machine = info.data ?? row;

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size={560}
      destroyOnHidden
      title={machine && <MachineDrawerTitle machine={machine} />}
      extra={
        row && (
          <Flex gap={8}>
            <ConnectButton
              machine={row}
              onConnect={onConnect}
              loading={connecting}
              variant="button"
              testId="enterprise-detail-connect"
            />
            <ScreenButton
              machine={row}
              scope={{ eid }}
              variant="button"
              testId="enterprise-detail-screen"
            />
          </Flex>
        )
      }
      data-testid="enterprise-device-drawer"
    >
      {machine && (
        <Flex vertical gap={16}>
          {info.isError && (
            <DetailRetryAlert message={info.error.message} onRetry={() => info.refetch()} />
          )}
          <MachineDescriptions machine={machine} />
          {type === 2 && (
            <MaintenanceRemark
              key={`${machine.machine_id}-${machine.maintenance_remark}`}
              eid={eid}
              machine={machine}
            />
          )}
          <Tabs
            size="small"
            defaultActiveKey={type === 2 ? "maintenance" : "member"}
            items={[
              {
                key: "member",
                label: t("enterprise.personnel"),
                children: <Personnel eid={eid} machineId={machine.machine_id} kind="member" />,
              },
              {
                key: "maintenance",
                label: t("enterprise.maintenancePersonnel"),
                children: <Personnel eid={eid} machineId={machine.machine_id} kind="maintenance" />,
              },
              {
                key: "alarms",
                label: (
                  <span data-testid="enterprise-detail-tab-alarms">{t("device.tabAlarms")}</span>
                ),
                children: <DeviceAlarms machineCode={machine.machine_code} eid={eid} />,
              },
            ]}
          />
          {/* Reserved: state, location and the cloud switch come with their endpoints. */}
          <div className="kw-reserved" data-testid="enterprise-device-reserved">
            <ClockCircleOutlined />
            <span>{t("device.detailLater")}</span>
          </div>
        </Flex>
      )}
    </Drawer>
  );
}

function Personnel(props: { eid: number; machineId: number; kind: "member" | "maintenance" }) {
  const { t } = useLang();
  const people = useQuery({
    queryKey: queryKeys.enterprisePersonnel(props.eid, props.machineId, props.kind),
    queryFn: () =>
      props.kind === "member"
        ? enterprisesApi.machinePersonnel(props.eid, props.machineId)
        : enterprisesApi.machineMaintenancePersonnel(props.eid, props.machineId),
    meta: { silent: true },
  });
  return (
    <div data-testid={`enterprise-personnel-${props.kind}`}>
      <Table<EnterpriseMember>
        rowKey={(m) => `${m.userId}-${m.kind}`}
        size="small"
        pagination={false}
        loading={people.isFetching}
        dataSource={people.data?.list ?? []}
        scroll={{ y: 260 }}
        columns={[
          { title: t("enterprise.memberName"), dataIndex: "name", ellipsis: true },
          { title: t("field.account"), dataIndex: "account", ellipsis: true },
          {
            title: t("enterprise.role"),
            dataIndex: "isAdmin",
            width: 100,
            render: (isAdmin: 0 | 1) =>
              isAdmin === 1 ? (
                <Tag color="gold">{t("enterprise.admin")}</Tag>
              ) : (
                t("enterprise.member")
              ),
          },
        ]}
        locale={{
          emptyText: people.isError ? (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={people.error.message}>
              <Button size="small" onClick={() => people.refetch()}>
                {t("common.retry")}
              </Button>
            </Empty>
          ) : (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t("enterprise.noPersonnel")} />
          ),
        }}
      />
    </div>
  );
}

function MaintenanceRemark({ eid, machine }: { eid: number; machine: Machine }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(remarkForm);
  const save = useMutation({ mutationFn: enterprisesApi.updateMaintenanceRemark });
  return (
    <div>
      <Typography.Text strong>{t("enterprise.maintenanceRemark")}</Typography.Text>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        className="kw-mt-sm"
        initialValues={{ remark: machine.maintenance_remark ?? "" }}
        onFinish={async (values) => {
          const { remark } = parseForm(remarkForm, values);
          try {
            await save.mutateAsync({ eid, machineId: machine.machine_id, remark });
          } catch {
            return;
          }
          message.success(t("enterprise.remarkSaved"));
          await queryClient.invalidateQueries({ queryKey: queryKeys.enterpriseAll(eid) });
        }}
      >
        <Form.Item name="remark" rules={[rule("remark")]} className="kw-mb-sm">
          <Input.TextArea
            autoSize={{ minRows: 2, maxRows: 4 }}
            showCount={{ formatter: ({ count }) => `${count} / ${LIMITS.remark.max}` }}
            placeholder={t("device.remarkPlaceholder")}
            data-testid="enterprise-remark-input"
          />
        </Form.Item>
        <Button
          type="primary"
          htmlType="submit"
          loading={save.isPending}
          data-testid="enterprise-remark-submit"
        >
          {t("common.save")}
        </Button>
      </Form>
    </div>
  );
}
