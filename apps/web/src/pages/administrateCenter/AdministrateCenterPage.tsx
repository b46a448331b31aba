import { ShopOutlined } from "@ant-design/icons";
import { useQuery } from "@tanstack/react-query";
import {
  Avatar,
  Button,
  Card,
  Flex,
  Layout,
  Result,
  Select,
  Space,
  Spin,
  Switch,
  Tabs,
  Tag,
  Typography,
} from "antd";
import { useEffect, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { type EnterpriseSummary, enterprisesApi } from "../../api/enterprises.ts";
import { useEnterpriseList, useUserInfo } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { operatorApi } from "../../api/operator.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { CreateEnterpriseAction } from "../../features/enterprise/CreateEnterpriseAction.tsx";
import { CreateOwnEnterpriseModal } from "../../features/enterprise/CreateOwnEnterpriseModal.tsx";
import { useProjectSetting } from "../../features/enterprise/useProjectSetting.ts";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";
import { useDebounced } from "../../lib/useDebounced.ts";
import { LANDING_ROUTE, PATHS } from "../../paths.ts";
import { AdminDevicesPanel } from "../enterpriseAdmin/AdminDevicesPanel.tsx";
import { GroupsPanel } from "../enterpriseAdmin/GroupsPanel.tsx";
import { MembersPanel } from "../enterpriseAdmin/MembersPanel.tsx";
import { AppHeader } from "../layout/AppHeader.tsx";

interface Choice {
  eid: number;
  name: string;
}

/**
 * /administrateCenter: the enterprise admin centre. An admin picks one of the enterprises
 * they administer (an operator any enterprise) and manages its members and device groups;
 * devices are only put in groups (assigning them is the operator's, in the back office).
 */
export function AdministrateCenterPage() {
  const { t } = useLang();
  const navigate = useNavigate();
  const authed = hasToken();
  const userInfo = useUserInfo();
  const user = userInfo.data;

  if (!authed) {
    return (
      <AuthShell>
        <Result
          status="403"
          title={t("backManage.noAccess")}
          extra={
            <Button
              type="primary"
              onClick={() => navigate(PATHS.login)}
              data-testid="admincenter-login"
            >
              {t("backManage.toLogin")}
            </Button>
          }
        />
      </AuthShell>
    );
  }

  return (
    <Layout className="kw-main">
      <AppHeader user={user} />
      <Layout.Content className="kw-content">
        {userInfo.isPending ? (
          <Spin size="large" className="kw-page-spin" />
        ) : (
          <AdminCenter operator={user?.role === "operator"} />
        )}
      </Layout.Content>
    </Layout>
  );
}

function AdminCenter({ operator }: { operator: boolean }) {
  const { t } = useLang();
  const navigate = useNavigate();
  const mine = useEnterpriseList();
  const [search, setSearch] = useState("");
  const term = useDebounced(search.trim());
  const all = useQuery({
    queryKey: queryKeys.operatorEnterprises({ page: 1, pageSize: 200, search: term || undefined }),
    queryFn: () => operatorApi.enterprises({ page: 1, pageSize: 200, search: term || undefined }),
    enabled: operator,
    meta: { silent: true },
  });
  const [picked, setPicked] = useState<Choice | null>(null);
  // One dialog for both buttons: it stays open while the page turns from "no access" to the
  // new enterprise's administration.
  const [creating, setCreating] = useState(false);
  const dialog = (
    <CreateOwnEnterpriseModal
      open={creating}
      onClose={() => setCreating(false)}
      onCreated={(e) => setPicked({ eid: e.eid, name: e.name })}
    />
  );
  // ?eid= (from "Invite members" after creating an enterprise) picks that one first.
  const [params] = useSearchParams();
  const wanted = Number(params.get("eid")) || null;

  const choices: Choice[] = operator
    ? (all.data?.list ?? []).map((e) => ({ eid: e.eid, name: e.name }))
    : (mine.data?.list ?? []).filter((e) => e.isAdmin === 1);
  const loading = operator ? all.isPending : mine.isPending;
  const first = choices.find((c) => c.eid === wanted) ?? choices[0];
  // The first enterprise is chosen until the user picks one (kept while searching).
  useEffect(() => {
    if (!picked && first) setPicked({ eid: first.eid, name: first.name });
  }, [picked, first]);
  const current = picked ?? first ?? null;

  if (loading) return <Spin size="large" className="kw-page-spin" />;
  if (!operator && choices.length === 0) {
    return (
      <>
        <Result
          status="403"
          title={<span data-testid="admincenter-denied">{t("backManage.noAccess")}</span>}
          subTitle={mine.isError ? mine.error.message : t("adminCenter.noAccessHint")}
          extra={
            <Flex vertical align="center" gap={16}>
              <CreateEnterpriseAction
                onOpen={() => setCreating(true)}
                testId="admincenter-create"
              />
              <Button onClick={() => navigate(LANDING_ROUTE)}>{t("backManage.toHome")}</Button>
            </Flex>
          }
        />
        {dialog}
      </>
    );
  }

  const options = choices.map((c) => ({ value: c.eid, label: c.name }));
  if (current && !options.some((o) => o.value === current.eid)) {
    options.unshift({ value: current.eid, label: current.name });
  }

  // The same tree shape as the "no access" answer above: the dialog keeps its state when the
  // page turns into the new enterprise's administration.
  return (
    <>
      <div className="kw-page kw-page-wide" data-testid="admincenter-page">
        <Flex align="center" gap={16} wrap className="kw-page-head">
          <Typography.Title level={4} className="kw-page-title">
            {t("adminCenter.title")}
          </Typography.Title>
          <Select
            className="kw-w-280"
            value={current?.eid}
            placeholder={t("adminCenter.pick")}
            options={options}
            showSearch={
              operator
                ? { filterOption: false, onSearch: setSearch }
                : { optionFilterProp: "label" }
            }
            onChange={(eid: number) => {
              const found = options.find((o) => o.value === eid);
              if (found) setPicked({ eid, name: found.label });
              setSearch("");
            }}
            notFoundContent={t("bo.enterpriseNoMatch")}
            data-testid="admincenter-enterprise"
          />
          <span className="kw-grow" />
          {!operator && (
            <CreateEnterpriseAction
              type="default"
              onOpen={() => setCreating(true)}
              testId="admincenter-create"
            />
          )}
        </Flex>
        {current ? (
          <EnterpriseAdmin key={current.eid} eid={current.eid} />
        ) : (
          <Card className="kw-card">
            <Result status="info" title={t("bo.enterpriseEmpty")} />
          </Card>
        )}
      </div>
      {dialog}
    </>
  );
}

function EnterpriseAdmin({ eid }: { eid: number }) {
  const { t } = useLang();
  const info = useQuery({
    queryKey: [...queryKeys.enterpriseAll(eid), "info"],
    queryFn: () => enterprisesApi.info(eid),
    meta: { silent: true },
  });
  const e: EnterpriseSummary | undefined = info.data;
  return (
    <Card
      className="kw-card"
      title={
        <Space>
          <Avatar shape="square" src={e?.applyLogoUrl || undefined} icon={<ShopOutlined />} />
          <span data-testid="admincenter-name">{e?.name ?? `#${eid}`}</span>
          {e?.platformName && e.platformName !== e.name && (
            <Typography.Text type="secondary">{e.platformName}</Typography.Text>
          )}
          {e?.enableProject === 1 && <Tag color="green">{t("bo.projects")}</Tag>}
        </Space>
      }
      extra={<ProjectSwitch eid={eid} />}
    >
      <Tabs
        destroyOnHidden
        items={[
          {
            key: "members",
            label: <span data-testid="admincenter-tab-members">{t("enterprise.members")}</span>,
            children: <MembersPanel eid={eid} />,
          },
          {
            key: "devices",
            label: <span data-testid="admincenter-tab-devices">{t("enterprise.devices")}</span>,
            children: <AdminDevicesPanel eid={eid} canManage={false} />,
          },
          {
            key: "groups",
            label: <span data-testid="ent-groups-tab">{t("enterprise.groups")}</span>,
            children: <GroupsPanel eid={eid} />,
          },
        ]}
      />
    </Card>
  );
}

/** Projects on or off, where the caller may switch them (enterprisePermission.canSetProject). */
function ProjectSwitch({ eid }: { eid: number }) {
  const { t } = useLang();
  const { permission, pending, set } = useProjectSetting(eid);
  if (!permission?.canSetProject) return null;
  return (
    <Space>
      <Typography.Text>{t("entCreate.projectSwitch")}</Typography.Text>
      <Switch
        checked={permission.enableProject === 1}
        loading={pending}
        onChange={(on) => set(on)}
        data-testid="admincenter-project-switch"
      />
    </Space>
  );
}
