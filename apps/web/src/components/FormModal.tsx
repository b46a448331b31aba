import { Button, type FormInstance, Modal } from "antd";
import type { ReactNode } from "react";
import { useLang } from "../i18n/index.ts";

interface Props {
  title: ReactNode;
  open: boolean;
  onClose: () => void;
  form: FormInstance;
  submitting: boolean;
  submitTestId: string;
  submitText?: ReactNode;
  danger?: boolean;
  submitDisabled?: boolean;
  /**
   * Focus back to what opened the dialog once it has closed (the default). Off when the
   * dialog hands over to another one, whose field would otherwise lose the focus mid-typing.
   */
  focusTriggerAfterClose?: boolean;
  children: ReactNode;
}

/** A modal around one form: Cancel + a submit button that shows the request's loading state. */
export function FormModal({
  title,
  open,
  onClose,
  form,
  submitting,
  submitTestId,
  submitText,
  danger,
  submitDisabled,
  focusTriggerAfterClose,
  children,
}: Props) {
  const { t } = useLang();
  return (
    <Modal
      title={title}
      open={open}
      onCancel={onClose}
      destroyOnHidden
      focusTriggerAfterClose={focusTriggerAfterClose}
      mask={{ closable: !submitting }}
      footer={[
        <Button key="cancel" onClick={onClose} disabled={submitting}>
          {t("common.cancel")}
        </Button>,
        <Button
          key="submit"
          type="primary"
          danger={danger}
          loading={submitting}
          disabled={submitDisabled}
          onClick={() => form.submit()}
          data-testid={submitTestId}
        >
          {submitText ?? t("common.save")}
        </Button>,
      ]}
    >
      {children}
    </Modal>
  );
}
