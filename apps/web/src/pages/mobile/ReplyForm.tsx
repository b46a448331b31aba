import { addVisitBody, type ReplyResult, visitTimeField } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Button, Dialog, Form, Input, Selector, Toast } from "antd-mobile";
import { useState } from "react";
import { accessApi } from "../../api/access.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { parseForm } from "../../lib/zodRule.tsx";
import { useMobileZodRule } from "./zodRule.ts";

/** The leave message of a reply: the same field (≤ 15 characters) as a request's. */
const replyForm = addVisitBody.pick({ message: true });

/** Visit times offered on the phone, in minutes (-1 forever); each passes visitTimeField. */
const VISIT_PRESETS = [30, 60, 8 * 60, 24 * 60, 7 * 24 * 60, -1] as const;

function presetLabel(t: ReturnType<typeof useLang>["t"], minutes: number): string {
  if (minutes === -1) return t("access.time.forever");
  if (minutes % (24 * 60) === 0) return t("access.time.days", { count: minutes / (24 * 60) });
  if (minutes % 60 === 0) return t("access.time.hours", { count: minutes / 60 });
  return t("access.time.minutes", { count: minutes });
}

/** Approve (visits: with a visit time), refuse, or black-list (asked first). */
export function ReplyForm({
  msgId,
  kind,
  requester,
}: {
  msgId: number;
  kind: "visit" | "bind";
  requester: string;
}) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const [form] = Form.useForm<{ message: string }>();
  const rule = useMobileZodRule(replyForm);
  const [visitTime, setVisitTime] = useState<number>(60);
  const reply = useMutation({
    mutationFn: (input: { result: ReplyResult; message: string }) =>
      accessApi.verify(kind, msgId, {
        result: input.result,
        message: input.message,
        visitTime:
          input.result === "agree" && kind === "visit"
            ? visitTimeField.parse(visitTime)
            : undefined,
      }),
    onSuccess: async (_view, input) => {
      const done = {
        agree: t("access.reply.agreed"),
        refuse: t("access.reply.refused"),
        blacklist: t("access.reply.blacklisted"),
      } as const;
      Toast.show({ icon: "success", content: done[input.result] });
      await queryClient.invalidateQueries({ queryKey: queryKeys.messagesAll });
    },
  });
  const answer = async (result: ReplyResult) => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    const { message } = parseForm(replyForm, form.getFieldsValue(true));
    if (result === "blacklist") {
      const yes = await Dialog.confirm({
        title: t("access.reply.blacklistConfirm", { name: requester }),
        content: t("access.reply.blacklistHint"),
        confirmText: <span data-testid="m-reply-blacklist-ok">{t("access.reply.blacklist")}</span>,
        cancelText: t("common.cancel"),
      });
      if (!yes) return;
    }
    reply.mutate({ result, message });
  };
  const busy = (result: ReplyResult) => reply.isPending && reply.variables?.result === result;
  return (
    <div className="kwm-reply" data-testid="m-reply">
      <h3>{t("access.reply.title")}</h3>
      {kind === "visit" && (
        <>
          <div className="kwm-label">{t("access.reply.visitTime")}</div>
          <Selector
            columns={3}
            value={[visitTime]}
            onChange={(v) => v[0] !== undefined && setVisitTime(v[0])}
            options={VISIT_PRESETS.map((m) => ({ label: presetLabel(t, m), value: m }))}
            data-testid="m-reply-visit-time"
          />
        </>
      )}
      <Form form={form} layout="vertical" initialValues={{ message: "" }}>
        <Form.Item name="message" label={t("access.reply.message")} rules={[rule("message")]}>
          <Input
            placeholder={t("access.messagePlaceholder")}
            maxLength={15}
            data-testid="m-reply-message"
          />
        </Form.Item>
      </Form>
      <div className="kwm-reply-buttons">
        <Button
          color="primary"
          loading={busy("agree")}
          disabled={reply.isPending}
          onClick={() => void answer("agree")}
          data-testid="m-reply-agree"
        >
          {t("access.reply.agree")}
        </Button>
        <Button
          loading={busy("refuse")}
          disabled={reply.isPending}
          onClick={() => void answer("refuse")}
          data-testid="m-reply-refuse"
        >
          {t("access.reply.refuse")}
        </Button>
        <Button
          color="danger"
          fill="outline"
          loading={busy("blacklist")}
          disabled={reply.isPending}
          onClick={() => void answer("blacklist")}
          data-testid="m-reply-blacklist"
        >
          {t("access.reply.blacklist")}
        </Button>
      </div>
    </div>
  );
}
