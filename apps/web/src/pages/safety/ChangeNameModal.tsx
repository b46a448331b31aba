import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { useNameForm } from "../account/useNameForm.tsx";

export function ChangeNameModal(props: { open: boolean; current: string; onClose: () => void }) {
  const { t } = useLang();
  const f = useNameForm({ current: props.current, onDone: props.onClose });
  return (
    <FormModal
      title={t("safety.changeName")}
      open={props.open}
      onClose={props.onClose}
      form={f.form}
      submitting={f.submitting}
      submitTestId="change-name-submit"
    >
      {f.element}
    </FormModal>
  );
}
