import type { FormInstance } from "antd";
import type { ReactElement } from "react";

/**
 * One account-change form, shared by the security centre's modals and the standalone pages
 * (/modifyPhone, /modifyEmail, /deleteAccount, /recoverPwd): the container only adds the
 * frame and the submit button (`form.submit()`).
 */
export interface AccountForm {
  form: FormInstance;
  element: ReactElement;
  submitting: boolean;
  /** The submit button waits for something besides valid fields (deletion's confirmation). */
  submitDisabled: boolean;
  /** Clears what the form keeps outside its fields (countdown, confirmation) on close. */
  reset: () => void;
}
