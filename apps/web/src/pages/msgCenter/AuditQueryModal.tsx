import { auditProcessQuery } from "@keyway/shared";
import { useQuery } from "@tanstack/react-query";
import { Alert, Button, Flex, Form, InputNumber, Modal, Skeleton } from "antd";
import { useState } from "react";
import { accessApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { useZodRule } from "../../lib/zodRule.tsx";
import { AuditSteps, RequestFacts } from "./audit.tsx";

/**
 * The audit-result query of the message centre (GET /v1/devices/auditProcess?requestId=):
 * a request's state and its steps, by the request number shown in the outbox.
 */
export function AuditQueryModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { t } = useLang();
  const [form] = Form.useForm<{ requestId: number | null }>();
  const rule = useZodRule(auditProcessQuery);
  const [requestId, setRequestId] = useState<number | null>(null);
  const process = useQuery({
    queryKey: queryKeys.auditProcess({ requestId: requestId ?? 0 }),
    queryFn: () => accessApi.auditProcess({ requestId: requestId ?? 0 }),
    enabled: open && requestId !== null,
    meta: { silent: true },
  });

  return (
    <Modal
      title={t("access.query.title")}
      open={open}
      onCancel={onClose}
      afterClose={() => {
        setRequestId(null);
        form.resetFields();
      }}
      footer={null}
      width={560}
    >
      <div data-testid="audit-query">
        <Form
          form={form}
          layout="inline"
          requiredMark={false}
          className="kw-mb"
          onFinish={(values) => setRequestId(values.requestId)}
        >
          <Form.Item
            name="requestId"
            rules={[{ required: true, message: t("access.query.required") }, rule("requestId")]}
          >
            <InputNumber<number>
              min={1}
              precision={0}
              className="kw-w-220"
              placeholder={t("access.query.placeholder")}
              data-testid="audit-query-id"
            />
          </Form.Item>
          <Form.Item>
            <Button
              type="primary"
              htmlType="submit"
              loading={process.isFetching}
              data-testid="audit-query-submit"
            >
              {t("access.query.submit")}
            </Button>
          </Form.Item>
        </Form>
        {requestId !== null && process.isPending && <Skeleton active />}
        {process.isError && (
          <Alert
            type="warning"
            showIcon
            title={process.error.message}
            data-testid="audit-query-error"
          />
        )}
        {process.data && (
          <Flex vertical gap={12} data-testid="audit-query-result">
            <RequestFacts request={process.data} />
            <div data-testid="audit-process">
              <AuditSteps steps={process.data.steps ?? []} />
            </div>
          </Flex>
        )}
      </div>
    </Modal>
  );
}
