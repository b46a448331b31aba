import { ReloadOutlined } from "@ant-design/icons";
import { useQuery } from "@tanstack/react-query";
import {
  Alert,
  Button,
  Card,
  Descriptions,
  Empty,
  Flex,
  Skeleton,
  Statistic,
  Typography,
} from "antd";
import { queryKeys } from "../../api/keys.ts";
import { type ProjectView, projectsApi } from "../../api/projects.ts";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { ReportStateTag } from "./parts.tsx";

/**
 * Delivery to the report server (POST /api/project/getServer): backlog, delivered, the
 * last success and the last failure with its error. Read again every 5 s while the tab is
 * open, and at once on Refresh (docs/architecture/reporting.md).
 */
export function DeliveryTab({ project }: { project: ProjectView }) {
  const { t } = useLang();
  const server = useQuery({
    queryKey: queryKeys.projectPart(project.id, "server"),
    queryFn: () => projectsApi.server(project.id),
    meta: { silent: true },
    // Live while the tab is open: points arrive and leave every few seconds.
    refetchInterval: 5_000,
  });
  const refresh = (
    <Button
      icon={<ReloadOutlined />}
      onClick={() => server.refetch()}
      loading={server.isFetching}
      data-testid="project-delivery-refresh"
    >
      {t("project.refresh")}
    </Button>
  );

  if (server.isPending) {
    return (
      <div data-testid="project-delivery-loading">
        <Skeleton active paragraph={{ rows: 4 }} />
      </div>
    );
  }
  if (server.isError) {
    return (
      <ListEmpty error={server.error.message} onRetry={() => server.refetch()} description={null} />
    );
  }
  const s = server.data;
  const d = s.delivery;
  const on = s.report_state === 1;
  const nothingYet = d.delivered === 0 && d.backlog === 0 && !d.last_failure_at;
  // Failing now: the last failure came after the last success.
  const failing =
    !!d.last_failure_at &&
    (!d.last_success_at || Date.parse(d.last_failure_at) >= Date.parse(d.last_success_at));

  return (
    <Flex
      vertical
      gap={16}
      data-testid="project-delivery"
      data-backlog={d.backlog}
      data-delivered={d.delivered}
    >
      <Flex align="center" gap={12}>
        <ReportStateTag on={on} />
        <Typography.Text code ellipsis className="kw-grow" data-testid="project-delivery-server">
          {s.server || t("project.deliveryNoServer")}
        </Typography.Text>
        {refresh}
      </Flex>
      {!on && nothingYet ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={
            <Flex vertical gap={4}>
              <span>{t("project.deliveryOff")}</span>
              <Typography.Text type="secondary">{t("project.deliveryOffHint")}</Typography.Text>
            </Flex>
          }
          data-testid="project-delivery-off"
        />
      ) : (
        <>
          <Card size="small">
            <Flex gap={48} wrap>
              <Statistic
                title={t("project.backlog")}
                value={d.backlog}
                data-testid="project-delivery-backlog"
              />
              <Statistic
                title={t("project.delivered")}
                value={d.delivered}
                data-testid="project-delivery-delivered"
              />
              <Statistic
                title={t("project.availableCount")}
                value={Math.max(0, project.report_count - d.delivered)}
              />
              {d.dropped > 0 && (
                <Statistic
                  title={t("project.dropped")}
                  value={d.dropped}
                  styles={{ content: { color: "#cf1322" } }}
                  data-testid="project-delivery-dropped"
                />
              )}
            </Flex>
          </Card>
          {nothingYet && (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={
                <Flex vertical gap={4}>
                  <span>{t("project.deliveryNothing")}</span>
                  <Typography.Text type="secondary">
                    {t("project.deliveryNothingHint")}
                  </Typography.Text>
                </Flex>
              }
              data-testid="project-delivery-empty"
            />
          )}
          <Descriptions
            size="small"
            column={1}
            bordered
            items={[
              {
                key: "success",
                label: t("project.lastSuccess"),
                children: (
                  <span data-testid="project-delivery-last-success">
                    {d.last_success_at ? formatDateTime(d.last_success_at) : t("project.never")}
                  </span>
                ),
              },
              {
                key: "failure",
                label: t("project.lastFailure"),
                children: (
                  <span data-testid="project-delivery-last-failure">
                    {d.last_failure_at ? formatDateTime(d.last_failure_at) : t("project.noFailure")}
                  </span>
                ),
              },
            ]}
          />
          {d.last_error && (
            <Alert
              type={failing ? "error" : "warning"}
              showIcon
              title={failing ? t("project.deliveryFailed") : t("project.deliveryRecovered")}
              description={
                <Flex vertical gap={2}>
                  <Typography.Text code>{d.last_error}</Typography.Text>
                  {failing && d.next_attempt_at && (
                    <Typography.Text type="secondary">
                      {t("project.deliveryNextAttempt", {
                        time: formatDateTime(d.next_attempt_at),
                      })}
                    </Typography.Text>
                  )}
                </Flex>
              }
              data-testid="project-delivery-error"
              data-failing={failing ? 1 : 0}
            />
          )}
          <Typography.Paragraph type="secondary" style={{ marginBottom: 0, fontSize: 12 }}>
            {t("project.deliverySigning", { id: project.id })}
          </Typography.Paragraph>
        </>
      )}
    </Flex>
  );
}
