import { AimOutlined } from "@ant-design/icons";
import { HW, type MachineLocation } from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  App,
  Button,
  Descriptions,
  Empty,
  Flex,
  Form,
  Input,
  Segmented,
  Skeleton,
  Tooltip,
  Typography,
} from "antd";
import { useState } from "react";
import { type AutoLocationWay, devicesApi } from "../../api/devices.ts";
import { ApiError } from "../../api/errors.ts";
import { queryKeys } from "../../api/keys.ts";
import { showError } from "../../api/queryClient.ts";
import { FormModal } from "../../components/FormModal.tsx";
import {
  formatLatLng,
  hasPosition,
  LOCATION_WAY_OPTIONS,
  type LocationWayOption,
  parseLocationWay,
} from "../../features/device/machine.ts";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { DeviceMiniMap } from "./DeviceMiniMap.tsx";
import { manualLocationForm as manualForm } from "./locationForm.ts";

/**
 * A device's location (SPEC §2): coordinates, address and way; choose gps / base / ip / manual
 * (Akey or Bkey); ask for a fresh fix (5 a day, SPEC §9); the position on a small map.
 */
export function DeviceLocation({ machineId, canWrite }: { machineId: number; canWrite: boolean }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [manualOpen, setManualOpen] = useState(false);
  const key = queryKeys.deviceLocation(machineId);
  const location = useQuery({
    queryKey: key,
    queryFn: () => devicesApi.location(machineId),
    meta: { silent: true },
  });

  const store = (next: MachineLocation) => {
    queryClient.setQueryData(key, next);
    void queryClient.invalidateQueries({ queryKey: queryKeys.deviceDetail(machineId) });
  };

  const setWay = useMutation({
    mutationFn: (way: AutoLocationWay) => devicesApi.setAutoLocationWay(machineId, way),
    onSuccess: (next, way) => {
      store(next);
      message.success(t("device.location.wayChanged", { way: t(`device.location.ways.${way}`) }));
    },
  });
  const refresh = useMutation({
    mutationFn: () => devicesApi.refreshLocation(machineId),
    meta: { silent: true },
    onSuccess: (next) => {
      store(next);
      message.success(t("device.location.refreshSent"));
    },
    onError: (error) => {
      showError(error);
      // Out of fixes for today: the button goes off at once.
      if (error instanceof ApiError && error.is(HW.LOCATION_DAILY_LIMIT.code)) {
        queryClient.setQueryData<MachineLocation>(key, (old) =>
          old ? { ...old, remaining: 0 } : old,
        );
      }
    },
  });

  if (location.isPending) return <Skeleton active paragraph={{ rows: 4 }} />;
  if (location.isError) {
    return (
      <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={location.error.message}>
        <Button size="small" onClick={() => location.refetch()}>
          {t("common.retry")}
        </Button>
      </Empty>
    );
  }

  const data = location.data;
  const way = parseLocationWay(data.locationWay);
  const remaining = data.remaining;
  const busy = setWay.isPending || refresh.isPending;

  const onWay = (next: LocationWayOption) => {
    if (next === "manual") setManualOpen(true);
    else setWay.mutate(next);
  };

  const waySelect = (
    <Segmented<LocationWayOption>
      value={way}
      disabled={!canWrite || busy}
      onChange={onWay}
      options={LOCATION_WAY_OPTIONS.map((option) => ({
        value: option,
        label: (
          <span data-testid={`device-location-way-${option}`}>
            {t(`device.location.ways.${option}`)}
          </span>
        ),
      }))}
      data-testid="device-location-way"
      data-value={way ?? ""}
    />
  );

  return (
    <Flex vertical gap={16} data-testid="device-location">
      <Flex wrap gap={12} align="center" justify="space-between">
        {canWrite ? (
          waySelect
        ) : (
          <Tooltip title={t("device.location.readOnly")}>
            <span className="kw-inline-block">{waySelect}</span>
          </Tooltip>
        )}
        <Flex gap={8} align="center">
          <Typography.Text
            type={remaining > 0 ? "secondary" : "danger"}
            className="kw-small"
            data-testid="device-location-remaining"
            data-remaining={remaining}
          >
            {t("device.location.remaining", { count: remaining })}
          </Typography.Text>
          <Button
            icon={<AimOutlined />}
            loading={refresh.isPending}
            disabled={!canWrite || remaining <= 0 || setWay.isPending}
            onClick={() => refresh.mutate()}
            data-testid="device-location-refresh"
          >
            {t("device.location.locateNow")}
          </Button>
        </Flex>
      </Flex>

      <Descriptions
        column={1}
        size="small"
        bordered
        styles={{ label: { width: 140 } }}
        items={[
          {
            key: "coordinates",
            label: t("device.location.coordinates"),
            children: hasPosition(data) ? (
              <Typography.Text className="kw-code" copyable data-testid="device-location-latlng">
                {formatLatLng(data.lat, data.lng)}
              </Typography.Text>
            ) : (
              <Typography.Text type="secondary">{t("device.location.noPosition")}</Typography.Text>
            ),
          },
          {
            key: "address",
            label: t("device.location.address"),
            children: data.address || "-",
          },
          {
            key: "way",
            label: t("device.location.way"),
            children: way ? t(`device.location.ways.${way}`) : data.locationWay || "-",
          },
        ]}
      />

      {hasPosition(data) && <DeviceMiniMap lat={data.lat} lng={data.lng} />}

      <ManualLocationModal
        open={manualOpen}
        machineId={machineId}
        initial={data}
        onClose={() => setManualOpen(false)}
        onSaved={(next) => {
          store(next);
          setManualOpen(false);
        }}
      />
    </Flex>
  );
}

function ManualLocationModal(props: {
  open: boolean;
  machineId: number;
  initial: MachineLocation;
  onClose: () => void;
  onSaved: (location: MachineLocation) => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(manualForm);
  const save = useMutation({ mutationFn: devicesApi.setManualLocation });
  const { initial } = props;
  return (
    <FormModal
      title={t("device.location.manualTitle")}
      open={props.open}
      onClose={props.onClose}
      form={form}
      submitting={save.isPending}
      submitTestId="device-location-manual-submit"
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{
          lat: initial.lat ?? "",
          lng: initial.lng ?? "",
          address: initial.address ?? "",
        }}
        onFinish={async (values) => {
          const body = parseForm(manualForm, values);
          let next: MachineLocation;
          try {
            next = await save.mutateAsync({ ...body, machineId: props.machineId });
          } catch {
            return;
          }
          message.success(t("device.location.saved"));
          props.onSaved(next);
        }}
      >
        <Flex gap={12}>
          <Form.Item
            name="lat"
            label={t("device.location.lat")}
            rules={[rule("lat")]}
            className="kw-grow"
          >
            <Input
              inputMode="decimal"
              placeholder={t("device.location.latPlaceholder")}
              data-testid="device-location-manual-lat"
            />
          </Form.Item>
          <Form.Item
            name="lng"
            label={t("device.location.lng")}
            rules={[rule("lng")]}
            className="kw-grow"
          >
            <Input
              inputMode="decimal"
              placeholder={t("device.location.lngPlaceholder")}
              data-testid="device-location-manual-lng"
            />
          </Form.Item>
        </Flex>
        <Form.Item name="address" label={t("device.location.address")} rules={[rule("address")]}>
          <Input
            maxLength={200}
            placeholder={t("device.location.addressPlaceholder")}
            data-testid="device-location-manual-address"
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
