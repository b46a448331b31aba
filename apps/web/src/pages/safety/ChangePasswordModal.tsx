import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { usePasswordForm } from "../account/usePasswordForm.tsx";

export function ChangePasswordModal(props: { open: boolean; onClose: () => void }) {
  const { t } = useLang();
  const f = usePasswordForm({ onDone: props.onClose });
  return (
    <FormModal
      title={t("safety.changePassword")}
      open={props.open}
      onClose={props.onClose}
      form={f.form}
      submitting={f.submitting}
      submitTestId="change-password-submit"
    >
      {f.element}
    </FormModal>
  );
}
