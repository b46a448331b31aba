import { groupMoveBody } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Form, Typography } from "antd";
import { devicesApi } from "../../api/devices.ts";
import { useGroups } from "../../api/hooks.ts";
import { queryKeys } from "../../api/keys.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { GroupSelect } from "./GroupSelect.tsx";

const moveForm = groupMoveBody.pick({ groupId: true });

/** PUT /device/v1/userGroup/move: puts devices in a group (0 = out of any group). */
export function MoveGroupModal(props: {
  deviceIds: number[] | null;
  initialGroupId?: number;
  onClose: () => void;
  onMoved?: () => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(moveForm);
  const open = props.deviceIds !== null && props.deviceIds.length > 0;
  const groups = useGroups(open);
  const move = useMutation({ mutationFn: devicesApi.moveToGroup });
  const count = props.deviceIds?.length ?? 0;

  return (
    <FormModal
      title={t("group.moveTitle")}
      open={open}
      onClose={props.onClose}
      form={form}
      submitting={move.isPending}
      submitTestId="device-move-submit"
      submitText={t("group.move")}
    >
      <Typography.Paragraph type="secondary">{t("group.moveHint", { count })}</Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ groupId: props.initialGroupId }}
        onFinish={async (values) => {
          const { groupId } = parseForm(moveForm, values);
          try {
            await move.mutateAsync({ groupId, deviceIds: props.deviceIds ?? [] });
          } catch {
            return;
          }
          message.success(t("group.moved", { count }));
          await queryClient.invalidateQueries({ queryKey: queryKeys.devicesAll });
          props.onMoved?.();
          props.onClose();
        }}
      >
        <Form.Item name="groupId" label={t("group.target")} rules={[rule("groupId")]}>
          <GroupSelect
            data-testid="device-move-group"
            groups={groups.data?.list}
            loading={groups.isPending}
          />
        </Form.Item>
      </Form>
    </FormModal>
  );
}
