import { FolderOpenOutlined, PlusOutlined } from "@ant-design/icons";
import { HW } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Button, Card, Empty, Flex, Result, Table, type TableProps, Typography } from "antd";
import { useState } from "react";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { type ProjectListQuery, type ProjectView, projectsApi } from "../../api/projects.ts";
import { EnterpriseListPage } from "../../components/EnterpriseListPage.tsx";
import { useProjectSetting } from "../../features/enterprise/useProjectSetting.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { CreateProjectModal } from "./CreateProjectModal.tsx";
import { KeyModal } from "./KeyModal.tsx";
import { ProjectDrawer } from "./ProjectDrawer.tsx";
import { LevelTag, ReportStateTag } from "./parts.tsx";

/** /project?type=1|2: enterprise or maintenance projects of the current enterprise context. */
export function ProjectsPage() {
  return (
    <EnterpriseListPage testId="project-no-context">
      {({ eid, type, name }) => (
        <Projects key={`${eid}-${type}`} query={{ eid, type }} name={name} />
      )}
    </EnterpriseListPage>
  );
}

function Projects({ query, name }: { query: ProjectListQuery; name: string }) {
  const { t } = useLang();
  const [creating, setCreating] = useState(false);
  const [openId, setOpenId] = useState<number | null>(null);
  /** The key of a project just created: shown once. */
  const [newKey, setNewKey] = useState<string | null>(null);
  const projects = useQuery({
    queryKey: queryKeys.projects(query),
    queryFn: () => projectsApi.list(query),
    meta: { silent: true },
  });
  const list = projects.data?.list ?? [];
  const open = openId === null ? null : (list.find((p) => p.id === openId) ?? null);

  const columns: TableProps<ProjectView>["columns"] = [
    {
      title: t("project.name"),
      dataIndex: "name",
      width: 200,
      ellipsis: true,
      render: (v: string) => <Typography.Text strong>{v}</Typography.Text>,
    },
    {
      title: t("project.description"),
      dataIndex: "description",
      ellipsis: true,
      render: (v: string) => v || "-",
    },
    {
      title: t("project.reportState"),
      dataIndex: "report_state",
      width: 110,
      render: (v: number) => <ReportStateTag on={v === 1} />,
    },
    { title: t("project.machines"), dataIndex: "machine_length", width: 90, align: "right" },
    { title: t("project.users"), dataIndex: "user_length", width: 80, align: "right" },
    {
      title: t("project.level"),
      dataIndex: "limit_authority",
      width: 110,
      render: (v: number) => <LevelTag level={v} />,
    },
    {
      title: t("project.created"),
      dataIndex: "created_at",
      width: 180,
      render: (v: string) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
    },
    {
      title: t("common.action"),
      key: "action",
      width: 90,
      fixed: "right",
      render: (_: unknown, p) => (
        <Button
          type="link"
          size="small"
          onClick={(e) => {
            e.stopPropagation();
            setOpenId(p.id);
          }}
          data-testid={`project-open-${p.id}`}
        >
          {t("project.details")}
        </Button>
      ),
    },
  ];

  const title = query.type === 2 ? t("nav.maintenanceProjects") : t("nav.enterpriseProjects");
  let body: React.ReactNode;
  if (projects.isError && !projects.data) {
    const error = projects.error;
    const refused = error instanceof ApiError && error.is(HW.NO_PERMISSION.code);
    const disabled = error instanceof ApiError && error.is(HW.PROJECT_DISABLED.code);
    body = (
      <Result
        status={refused ? "403" : disabled ? "info" : "warning"}
        title={disabled ? t("project.disabled") : refused ? error.message : t("project.loadFailed")}
        subTitle={refused ? t("project.refused") : disabled ? undefined : error.message}
        extra={
          disabled ? (
            <TurnOnProjects eid={query.eid} onDone={() => projects.refetch()} />
          ) : refused ? undefined : (
            <Button onClick={() => projects.refetch()}>{t("common.retry")}</Button>
          )
        }
        data-testid="project-error"
      />
    );
  } else {
    body = (
      <Table<ProjectView>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={list}
        loading={projects.isFetching}
        pagination={{ pageSize: 20, hideOnSinglePage: true, showSizeChanger: false }}
        scroll={{ x: 1000 }}
        rowClassName="kw-clickable"
        onRow={(p) =>
          ({
            "data-testid": `project-row-${p.id}`,
            "data-name": p.name,
            onClick: () => setOpenId(p.id),
          }) as React.HTMLAttributes<HTMLElement>
        }
        locale={{
          emptyText: projects.isPending ? (
            <span />
          ) : (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={
                <Flex vertical gap={4}>
                  <span>{t("project.empty")}</span>
                  <Typography.Text type="secondary">{t("project.emptyHint")}</Typography.Text>
                </Flex>
              }
              data-testid="project-empty"
            >
              <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
                {t("project.newProject")}
              </Button>
            </Empty>
          ),
        }}
      />
    );
  }

  return (
    <div className="kw-page kw-page-wide" data-testid={`project-page-${query.type}`}>
      <Flex align="center" gap={12} className="kw-page-head">
        <FolderOpenOutlined className="kw-primary-icon" />
        <Typography.Title level={4} className="kw-page-title">
          {title}
        </Typography.Title>
        <Typography.Text type="secondary" data-testid="project-context">
          {name}
        </Typography.Text>
        {projects.data && (
          <Typography.Text type="secondary" data-testid="project-total">
            · {t("project.total", { total: projects.data.total ?? list.length })}
          </Typography.Text>
        )}
        <span className="kw-grow" />
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => setCreating(true)}
          disabled={projects.isError && !projects.data}
          data-testid="project-create"
        >
          {t("project.newProject")}
        </Button>
      </Flex>
      <Card className="kw-card" styles={{ body: { padding: 16 } }}>
        {body}
      </Card>
      <CreateProjectModal
        open={creating}
        query={query}
        onClose={() => setCreating(false)}
        onCreated={(project) => {
          setCreating(false);
          setNewKey(project.secret_key);
        }}
      />
      <KeyModal secretKey={newKey} onClose={() => setNewKey(null)} />
      <ProjectDrawer project={open} query={query} onClose={() => setOpenId(null)} />
    </div>
  );
}

/**
 * Projects are off for this enterprise: who may switch them on (an admin of a user-created
 * enterprise) gets the switch here; others read who can.
 */
function TurnOnProjects({ eid, onDone }: { eid: number; onDone: () => void }) {
  const { t } = useLang();
  const { permission, pending, set } = useProjectSetting(eid);
  if (!permission) return null;
  if (!permission.canSetProject) {
    return (
      <Typography.Text type="secondary" data-testid="project-turn-on-hint">
        {permission.isAdmin ? t("entCreate.projectsOperatorHint") : t("entCreate.projectsOffHint")}
      </Typography.Text>
    );
  }
  return (
    <Button
      type="primary"
      loading={pending}
      onClick={async () => {
        if (await set(true)) onDone();
      }}
      data-testid="project-turn-on"
    >
      {t("entCreate.turnOnProjects")}
    </Button>
  );
}
