import { DeleteOutlined, LogoutOutlined } from "@ant-design/icons";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Button, Descriptions, Drawer, Flex, Popconfirm, Tabs, Typography } from "antd";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { type ProjectListQuery, type ProjectView, projectsApi } from "../../api/projects.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useAppStore } from "../../store/app.ts";
import { DeliveryTab } from "./DeliveryTab.tsx";
import { MachinesTab } from "./MachinesTab.tsx";
import { isOwner, LevelTag, ReportStateTag } from "./parts.tsx";
import { SettingsTab } from "./SettingsTab.tsx";
import { UsersTab } from "./UsersTab.tsx";

const testId = (id: string) => ({ "data-testid": id }) as object;

/**
 * A project: its figures, then users, machines, report settings and delivery. The owner
 * (level 3) deletes it; a user (level 2) may leave it.
 */
export function ProjectDrawer({
  project,
  query,
  onClose,
}: {
  project: ProjectView | null;
  query: ProjectListQuery;
  onClose: () => void;
}) {
  const { t } = useLang();
  const [tab, setTab] = useState("users");
  return (
    <Drawer
      open={project !== null}
      onClose={onClose}
      size={760}
      destroyOnHidden
      afterOpenChange={(open) => {
        if (!open) setTab("users");
      }}
      title={
        project && (
          <Flex gap={8} align="center">
            <Typography.Text strong ellipsis data-testid="project-drawer-title">
              {project.name}
            </Typography.Text>
            <LevelTag level={project.limit_authority} />
          </Flex>
        )
      }
      extra={project && <DrawerActions project={project} onGone={onClose} />}
      data-testid="project-drawer"
    >
      {project && (
        <Flex vertical gap={16}>
          <Descriptions
            size="small"
            column={3}
            bordered
            items={[
              {
                key: "description",
                label: t("project.description"),
                span: 3,
                children: project.description || "-",
              },
              {
                key: "report",
                label: t("project.reportState"),
                children: <ReportStateTag on={project.report_state === 1} />,
              },
              {
                key: "machines",
                label: t("project.machines"),
                children: (
                  <span data-testid="project-machine-length">{project.machine_length}</span>
                ),
              },
              {
                key: "users",
                label: t("project.users"),
                children: <span data-testid="project-user-length">{project.user_length}</span>,
              },
              {
                key: "count",
                label: t("project.reportCount"),
                children: (
                  <span data-testid="project-report-count">
                    {project.report_count.toLocaleString()}
                  </span>
                ),
              },
              {
                key: "available",
                label: t("project.availableCount"),
                children: (
                  <span data-testid="project-available-count">
                    {project.available_count.toLocaleString()}
                  </span>
                ),
              },
              {
                key: "created",
                label: t("project.created"),
                children: formatDateTime(project.created_at),
              },
            ]}
          />
          <Tabs
            activeKey={tab}
            onChange={setTab}
            items={[
              {
                key: "users",
                label: <span data-testid="project-tab-users">{t("project.tabUsers")}</span>,
                children: <UsersTab project={project} />,
              },
              {
                key: "machines",
                label: <span data-testid="project-tab-machines">{t("project.tabMachines")}</span>,
                children: <MachinesTab project={project} query={query} />,
              },
              {
                key: "settings",
                label: <span data-testid="project-tab-settings">{t("project.tabSettings")}</span>,
                children: <SettingsTab project={project} />,
              },
              {
                key: "delivery",
                label: <span data-testid="project-tab-delivery">{t("project.tabDelivery")}</span>,
                children: <DeliveryTab project={project} />,
              },
            ]}
          />
        </Flex>
      )}
    </Drawer>
  );
}

/** Delete (owner, its machines go with it) or leave (a level-2 user), each asked first. */
function DrawerActions({ project, onGone }: { project: ProjectView; onGone: () => void }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const me = useAppStore((s) => s.userId) ?? 0;
  const remove = useMutation({ mutationFn: projectsApi.remove });
  const leave = useMutation({ mutationFn: projectsApi.delUser });
  const done = async (text: string) => {
    message.success(text);
    onGone();
    await queryClient.invalidateQueries({ queryKey: queryKeys.projectsAll });
  };
  if (isOwner(project.limit_authority)) {
    return (
      <Popconfirm
        title={t("project.deleteConfirm", { name: project.name })}
        description={
          <span className="kw-popconfirm-text">
            {t("project.deleteHint", { count: project.machine_length })}
          </span>
        }
        okText={t("common.delete")}
        cancelText={t("common.cancel")}
        okButtonProps={{ danger: true, ...testId("project-delete-confirm") }}
        onConfirm={async () => {
          try {
            await remove.mutateAsync(project.id);
          } catch {
            return;
          }
          await done(t("project.deleted"));
        }}
      >
        <Button
          danger
          icon={<DeleteOutlined />}
          loading={remove.isPending}
          data-testid="project-delete"
        >
          {t("project.delete")}
        </Button>
      </Popconfirm>
    );
  }
  return (
    <Popconfirm
      title={t("project.leaveConfirm", { name: project.name })}
      description={<span className="kw-popconfirm-text">{t("project.leaveHint")}</span>}
      okText={t("project.leave")}
      cancelText={t("common.cancel")}
      okButtonProps={{ danger: true, ...testId("project-leave-confirm") }}
      onConfirm={async () => {
        try {
          await leave.mutateAsync({ id: project.id, delUserId: me });
        } catch {
          return;
        }
        await done(t("project.left"));
      }}
    >
      <Button
        danger
        icon={<LogoutOutlined />}
        loading={leave.isPending}
        data-testid="project-leave"
      >
        {t("project.leave")}
      </Button>
    </Popconfirm>
  );
}
