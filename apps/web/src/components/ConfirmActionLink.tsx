import { App, Button, Popconfirm } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../i18n/index.ts";

const testId = (id: string) => ({ "data-testid": id }) as object;

/**
 * A danger link that asks first, then runs `action`; on success it says `successText` and
 * calls `onDone` (usually a refetch). A failed action shows nothing more here: the API layer
 * already showed the server's message.
 */
export function ConfirmActionLink(props: {
  title: ReactNode;
  description?: ReactNode;
  okText: string;
  label: ReactNode;
  icon?: ReactNode;
  loading?: boolean;
  testId: string;
  confirmTestId?: string;
  action: () => Promise<unknown>;
  successText: string;
  onDone?: () => Promise<unknown> | undefined;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  return (
    <Popconfirm
      title={props.title}
      description={props.description}
      okText={props.okText}
      cancelText={t("common.cancel")}
      okButtonProps={{ danger: true, ...(props.confirmTestId ? testId(props.confirmTestId) : {}) }}
      onConfirm={async () => {
        try {
          await props.action();
        } catch {
          return;
        }
        message.success(props.successText);
        await props.onDone?.();
      }}
    >
      <Button
        type="link"
        danger
        size="small"
        icon={props.icon}
        loading={props.loading}
        data-testid={props.testId}
      >
        {props.label}
      </Button>
    </Popconfirm>
  );
}
