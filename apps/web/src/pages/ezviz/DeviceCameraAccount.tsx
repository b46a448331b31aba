import { CameraOutlined } from "@ant-design/icons";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Flex, Popconfirm, Select, Skeleton, Tooltip, Typography } from "antd";
import { useState } from "react";
import { Link } from "react-router";
import { cameraKeys, camerasApi } from "../../api/cameras.ts";
import { useLang } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";

/**
 * The device's camera cloud account (the Machine's ezviz_account_id), in the device detail.
 * The Akey picks one of their own accounts (changeEzvizAccount) or releases it
 * (releaseEzvizAccount, asked first); everyone else sees whether one is bound.
 */
export function DeviceCameraAccount({ machineId, isAkey }: { machineId: number; isAkey: boolean }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [choice, setChoice] = useState<number | null>(null);
  const query = useQuery({
    queryKey: cameraKeys.machine(machineId),
    queryFn: () => camerasApi.forMachine(machineId),
    meta: { silent: true },
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: cameraKeys.all });
  const bind = useMutation({
    mutationFn: (accountId: number) => camerasApi.bind(machineId, accountId),
    onSuccess: async () => {
      message.success(t("ezviz.bound"));
      setChoice(null);
      await refresh();
    },
  });
  const release = useMutation({
    mutationFn: () => camerasApi.release(machineId),
    onSuccess: async () => {
      message.success(t("ezviz.released"));
      setChoice(null);
      await refresh();
    },
  });

  if (query.isPending) return <Skeleton.Input size="small" active />;
  if (query.isError)
    return (
      <Typography.Text type="secondary" data-testid="device-ezviz-error">
        {query.error.message}{" "}
        <Button type="link" size="small" onClick={() => query.refetch()}>
          {t("common.retry")}
        </Button>
      </Typography.Text>
    );

  const { list } = query.data;
  const boundId = query.data.ezviz_account_id ?? 0;
  const bound = list.find((a) => a.id === boundId);
  const boundLabel = boundId === 0 ? t("ezviz.none") : (bound?.name ?? t("ezviz.boundOther"));

  if (!isAkey)
    return (
      <Tooltip title={t("ezviz.akeyOnly")}>
        <Typography.Text data-testid="device-ezviz-readonly">
          <CameraOutlined /> {boundLabel}
        </Typography.Text>
      </Tooltip>
    );

  if (list.length === 0)
    return (
      <Typography.Text type="secondary" data-testid="device-ezviz-empty">
        {t("ezviz.noAccounts")} <Link to={PATHS.ezviz}>{t("ezviz.add")}</Link>
      </Typography.Text>
    );

  // Unbound: the default account is offered first (what "default" means here).
  const preset = boundId || list.find((a) => a.is_default === 1)?.id || null;
  const selected = choice ?? preset;
  return (
    <Flex gap={8} align="center" wrap data-testid="device-ezviz">
      <Select<number>
        style={{ minWidth: 220 }}
        placeholder={t("ezviz.choose")}
        value={selected ?? undefined}
        onChange={(value) => setChoice(value)}
        options={list.map((a) => ({
          value: a.id,
          label: a.is_default === 1 ? `${a.name} (${t("ezviz.default")})` : a.name,
        }))}
        data-testid="device-ezviz-select"
      />
      <Button
        type="primary"
        size="middle"
        disabled={selected === null || selected === boundId}
        loading={bind.isPending}
        onClick={() => selected !== null && bind.mutate(selected)}
        data-testid="device-ezviz-bind"
      >
        {t("ezviz.bind")}
      </Button>
      {boundId !== 0 && (
        <Popconfirm
          title={t("ezviz.releaseTitle")}
          description={t("ezviz.releaseConfirm", { name: boundLabel })}
          okText={t("ezviz.release")}
          cancelText={t("common.cancel")}
          okButtonProps={{
            danger: true,
            ...({ "data-testid": "device-ezviz-release-ok" } as object),
          }}
          onConfirm={() => release.mutateAsync().catch(() => undefined)}
        >
          <Button danger loading={release.isPending} data-testid="device-ezviz-release">
            {t("ezviz.release")}
          </Button>
        </Popconfirm>
      )}
    </Flex>
  );
}
