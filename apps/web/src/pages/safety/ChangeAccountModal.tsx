import { FormModal } from "../../components/FormModal.tsx";
import { useContactForm } from "../account/useContactForm.tsx";

interface Props {
  kind: "phone" | "email";
  open: boolean;
  title: string;
  currentCountryCode?: string;
  onClose: () => void;
}

/** Change the account phone or e-mail in a modal (the form is shared with /modifyPhone, /modifyEmail). */
export function ChangeAccountModal({ kind, open, title, currentCountryCode, onClose }: Props) {
  const f = useContactForm({ kind, currentCountryCode, onDone: onClose });
  const close = () => {
    f.reset();
    onClose();
  };
  return (
    <FormModal
      title={title}
      open={open}
      onClose={close}
      form={f.form}
      submitting={f.submitting}
      submitTestId={`change-${kind}-submit`}
    >
      {f.element}
    </FormModal>
  );
}
