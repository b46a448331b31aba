import { DownloadOutlined } from "@ant-design/icons";
import { type ProvisionedDevice, provisionBody } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Alert, Button, Form, Input, InputNumber, Modal, Table, Typography } from "antd";
import dayjs from "dayjs";
import { useState } from "react";
import { queryKeys } from "../../api/keys.ts";
import { operatorApi } from "../../api/operator.ts";
import { useLang } from "../../i18n/index.ts";
import { downloadText } from "../../lib/csv.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { provisionCsv } from "./provisionCsv.ts";

/**
 * POST /operator/v1/devices/provision: issue machine codes. The passwords and secrets are
 * shown once, so the result stays on screen with a CSV download until the operator closes it.
 */
export function ProvisionModal(props: { open: boolean; onClose: () => void }) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(provisionBody);
  const [result, setResult] = useState<ProvisionedDevice[] | null>(null);
  const [downloaded, setDownloaded] = useState(false);
  const provision = useMutation({ mutationFn: operatorApi.provision });

  const close = () => {
    setResult(null);
    setDownloaded(false);
    props.onClose();
  };

  const download = () => {
    if (!result) return;
    downloadText(`machine-codes-${dayjs().format("YYYYMMDD-HHmmss")}.csv`, provisionCsv(result));
    setDownloaded(true);
  };

  return (
    <Modal
      title={result ? t("bo.provisionResult", { count: result.length }) : t("bo.provisionTitle")}
      open={props.open}
      onCancel={close}
      destroyOnHidden
      width={result ? 900 : 480}
      mask={{ closable: false }}
      footer={
        result
          ? [
              <Button key="close" onClick={close} data-testid="bo-provision-close">
                {t("common.close")}
              </Button>,
              <Button
                key="csv"
                type="primary"
                icon={<DownloadOutlined />}
                onClick={download}
                data-testid="bo-provision-csv"
              >
                {t("bo.downloadCsv")}
              </Button>,
            ]
          : [
              <Button key="cancel" onClick={close} disabled={provision.isPending}>
                {t("common.cancel")}
              </Button>,
              <Button
                key="submit"
                type="primary"
                loading={provision.isPending}
                onClick={() => form.submit()}
                data-testid="bo-provision-submit"
              >
                {t("bo.provisionSubmit")}
              </Button>,
            ]
      }
    >
      {result ? (
        <>
          <Alert
            type="warning"
            showIcon
            className="kw-mb"
            title={t("bo.provisionOnce")}
            description={downloaded ? t("bo.provisionDownloaded") : t("bo.provisionOnceHint")}
            data-testid="bo-provision-warning"
          />
          <div data-testid="bo-provision-result">
            <Table<ProvisionedDevice>
              rowKey="machineCode"
              size="small"
              dataSource={result}
              pagination={result.length > 50 ? { pageSize: 50, showSizeChanger: false } : false}
              scroll={{ x: 820, y: 360 }}
              columns={[
                {
                  title: t("device.code"),
                  dataIndex: "machineCode",
                  width: 200,
                  render: (v: string) => (
                    <Typography.Text className="kw-code" copyable data-testid="bo-code">
                      {v}
                    </Typography.Text>
                  ),
                },
                {
                  title: t("bo.devicePassword"),
                  dataIndex: "devicePassword",
                  width: 160,
                  render: (v: string) => (
                    <Typography.Text className="kw-code" copyable data-testid="bo-password">
                      {v}
                    </Typography.Text>
                  ),
                },
                {
                  title: t("bo.deviceSecret"),
                  dataIndex: "deviceSecret",
                  render: (v: string) => (
                    <Typography.Text className="kw-code" copyable data-testid="bo-secret">
                      {v}
                    </Typography.Text>
                  ),
                },
                {
                  title: t("device.model"),
                  dataIndex: "model",
                  width: 120,
                  render: (v: string) => v || "-",
                },
              ]}
            />
          </div>
        </>
      ) : (
        <Form
          form={form}
          layout="vertical"
          requiredMark={false}
          initialValues={{ count: 1 }}
          onFinish={async (values) => {
            const body = parseForm(provisionBody, values);
            let data: { list: ProvisionedDevice[] };
            try {
              data = await provision.mutateAsync({ ...body, model: body.model || undefined });
            } catch {
              return;
            }
            setResult(data.list ?? []);
            await queryClient.invalidateQueries({ queryKey: queryKeys.registryAll });
          }}
        >
          <Typography.Paragraph type="secondary">{t("bo.provisionHint")}</Typography.Paragraph>
          <Form.Item name="count" label={t("bo.count")} rules={[rule("count")]}>
            <InputNumber
              min={1}
              max={1000}
              precision={0}
              className="kw-w-full"
              data-testid="bo-provision-count"
            />
          </Form.Item>
          <Form.Item name="model" label={t("device.model")} rules={[rule("model")]}>
            <Input placeholder={t("bo.modelPlaceholder")} data-testid="bo-provision-model" />
          </Form.Item>
        </Form>
      )}
    </Modal>
  );
}
