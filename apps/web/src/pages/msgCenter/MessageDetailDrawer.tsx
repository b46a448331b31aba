import {
  type AccessRequestView,
  addVisitBody,
  isFinalAuditState,
  LIMITS,
  type MessageBox,
  type MessageView,
  type ReplyResult,
} from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Drawer,
  Flex,
  Form,
  Input,
  Popconfirm,
  Skeleton,
  Space,
  Typography,
} from "antd";
import { accessApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { messagesApi } from "../../api/messages.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import {
  DEFAULT_VISIT_TIME,
  VisitTimeInput,
  type VisitTimeValue,
  visitTimeOf,
  visitTimeRule,
} from "../../components/VisitTimeInput.tsx";
import { MachineCode } from "../../features/device/MachineParts.tsx";
import { useMessageDetail } from "../../features/message/useMessageDetail.ts";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { useZodRule } from "../../lib/zodRule.tsx";
import { AuditSteps, MessageTypeTag, RequestFacts } from "./audit.tsx";

const testId = (id: string) => ({ "data-testid": id }) as object;
/** The leave message of a reply: the same field (≤ 15 characters) as a request's. */
const replyForm = addVisitBody.pick({ message: true });

/**
 * One message (GET /msg/v1/detail/:id, which marks it read): its text, and for access
 * requests the request, its audit process and — for an approver while it is open — agree
 * (with a visit time for visits), refuse with a message, or add the requester to the black list.
 */
export function MessageDetailDrawer(props: {
  id: number | null;
  box: MessageBox;
  onClose: () => void;
}) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const id = props.id ?? 0;
  const open = props.id !== null;
  const detail = useMessageDetail(props.id);
  const remove = useMutation({ mutationFn: () => messagesApi.clear(props.box, id) });

  const m = detail.data;
  return (
    <Drawer
      open={open}
      onClose={props.onClose}
      size={560}
      destroyOnHidden
      title={
        m ? (
          <Space>
            <MessageTypeTag type={m.type} />
            <span>{m.title}</span>
          </Space>
        ) : (
          t("msg.detail")
        )
      }
      extra={
        m && (
          <ConfirmActionLink
            title={t("msg.deleteConfirm")}
            okText={t("common.delete")}
            label={t("common.delete")}
            testId="msg-detail-delete"
            confirmTestId="msg-delete-confirm"
            action={() => remove.mutateAsync()}
            successText={t("msg.deleted")}
            onDone={() => {
              props.onClose();
              return queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
            }}
          />
        )
      }
      data-testid="msg-detail"
    >
      {detail.isPending && open && <Skeleton active />}
      {detail.isError && <Alert type="warning" showIcon title={detail.error.message} />}
      {m && <MessageBody message={m} />}
    </Drawer>
  );
}

function MessageBody({ message: m }: { message: MessageView }) {
  const { t } = useLang();
  const request = m.request;
  return (
    <Flex vertical gap={16}>
      <Descriptions
        column={1}
        size="small"
        items={[
          { key: "time", label: t("msg.time"), children: formatDateTime(m.created_at) },
          ...(m.machine_code
            ? [
                {
                  key: "device",
                  label: t("msg.device"),
                  children: <MachineCode code={m.machine_code} copyable />,
                },
              ]
            : []),
          ...(m.content
            ? [
                {
                  key: "content",
                  label: t("msg.content"),
                  children: (
                    <Typography.Text className="kw-break" data-testid="msg-detail-content">
                      {m.content}
                    </Typography.Text>
                  ),
                },
              ]
            : []),
        ]}
      />
      {request && (
        <Card size="small" title={t("access.request.title")} data-testid="msg-detail-request">
          <RequestFacts request={request} />
          <Typography.Title level={5} className="kw-mt">
            {t("access.process.title")}
          </Typography.Title>
          <div data-testid="audit-process">
            <AuditSteps steps={request.steps ?? []} />
          </div>
        </Card>
      )}
      {request && m.canReply && !isFinalAuditState(request.auditState) && (
        <ReplyPanel msgId={m.id} request={request} />
      )}
    </Flex>
  );
}

interface ReplyValues {
  message: string;
  visitTime: VisitTimeValue;
}

/** Agree (visits: with a visit time), refuse with a message, or black-list the requester. */
function ReplyPanel({ msgId, request }: { msgId: number; request: AccessRequestView }) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<ReplyValues>();
  const rule = useZodRule(replyForm);
  const isVisit = request.kind === "visit";
  const reply = useMutation({
    mutationFn: (input: { result: ReplyResult; values: ReplyValues }) =>
      accessApi.verify(request.kind, msgId, {
        result: input.result,
        message: replyForm.parse({ message: input.values.message }).message,
        visitTime:
          input.result === "agree" && isVisit ? visitTimeOf(input.values.visitTime) : undefined,
      }),
    onSuccess: async (_view, input) => {
      const done = {
        agree: t("access.reply.agreed"),
        refuse: t("access.reply.refused"),
        blacklist: t("access.reply.blacklisted"),
      } as const;
      message.success(done[input.result]);
      await queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
    },
  });

  const answer = async (result: ReplyResult) => {
    const fields: (keyof ReplyValues)[] =
      result === "agree" && isVisit ? ["message", "visitTime"] : ["message"];
    let values: ReplyValues;
    try {
      await form.validateFields(fields);
      values = form.getFieldsValue(true) as ReplyValues;
    } catch {
      return;
    }
    reply.mutate({ result, values });
  };
  const busy = (result: ReplyResult) => reply.isPending && reply.variables?.result === result;

  return (
    <Card size="small" title={t("access.reply.title")} data-testid="reply-panel">
      <Form<ReplyValues>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ message: "", visitTime: DEFAULT_VISIT_TIME }}
      >
        {isVisit && (
          <Form.Item
            name="visitTime"
            label={t("access.reply.visitTime")}
            rules={[visitTimeRule]}
            extra={t("access.time.hint")}
          >
            <VisitTimeInput testId="reply-visit-time" />
          </Form.Item>
        )}
        <Form.Item name="message" label={t("access.reply.message")} rules={[rule("message")]}>
          <Input
            placeholder={t("access.messagePlaceholder")}
            maxLength={LIMITS.visitMessage.max}
            showCount
            data-testid="reply-message"
          />
        </Form.Item>
        <Space wrap>
          <Button
            type="primary"
            loading={busy("agree")}
            disabled={reply.isPending}
            onClick={() => answer("agree")}
            data-testid="reply-agree"
          >
            {t("access.reply.agree")}
          </Button>
          <Button
            loading={busy("refuse")}
            disabled={reply.isPending}
            onClick={() => answer("refuse")}
            data-testid="reply-refuse"
          >
            {t("access.reply.refuse")}
          </Button>
          <Popconfirm
            title={t("access.reply.blacklistConfirm", {
              name: request.requester_name || request.requester_account,
            })}
            description={
              <span className="kw-popconfirm-text">{t("access.reply.blacklistHint")}</span>
            }
            okText={t("access.reply.blacklist")}
            cancelText={t("common.cancel")}
            okButtonProps={{ danger: true, ...testId("reply-blacklist-confirm") }}
            onConfirm={() => answer("blacklist")}
          >
            <Button
              danger
              loading={busy("blacklist")}
              disabled={reply.isPending}
              data-testid="reply-blacklist"
            >
              {t("access.reply.blacklist")}
            </Button>
          </Popconfirm>
        </Space>
      </Form>
    </Card>
  );
}
