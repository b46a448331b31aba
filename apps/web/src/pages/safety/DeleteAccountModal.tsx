import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { useDeleteAccountForm } from "../account/useDeleteAccountForm.tsx";

/** Danger zone: account deletion in a modal (the form is shared with /deleteAccount). */
export function DeleteAccountModal(props: { open: boolean; onClose: () => void }) {
  const { t } = useLang();
  const f = useDeleteAccountForm();
  const close = () => {
    f.reset();
    props.onClose();
  };
  return (
    <FormModal
      title={t("safety.deleteAccountTitle")}
      open={props.open}
      onClose={close}
      form={f.form}
      danger
      submitting={f.submitting}
      submitDisabled={f.submitDisabled}
      submitText={t("safety.deleteAccountSubmit")}
      submitTestId="delete-account-submit"
    >
      {f.element}
    </FormModal>
  );
}
