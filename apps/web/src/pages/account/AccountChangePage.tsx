import { CheckCircleOutlined } from "@ant-design/icons";
import { Button, Flex, Result, Skeleton } from "antd";
import { type ReactNode, useState } from "react";
import { useNavigate } from "react-router";
import { useUserInfo } from "../../api/hooks.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { useLang } from "../../i18n/index.ts";
import { PATHS } from "../../paths.ts";
import { RequireLogin } from "./RequireLogin.tsx";
import type { AccountForm } from "./types.ts";
import { useContactForm } from "./useContactForm.tsx";
import { useDeleteAccountForm } from "./useDeleteAccountForm.tsx";

/**
 * The frame of a standalone account-change page (login shell, no navigation): what a phone
 * app's web view opens. Title, the shared form, one submit button, then a done state.
 */
function ChangeFrame(props: {
  title: ReactNode;
  subtitle?: ReactNode;
  testId: string;
  form: AccountForm;
  submitText: ReactNode;
  submitTestId: string;
  danger?: boolean;
  loading?: boolean;
  done?: ReactNode;
}) {
  const { t } = useLang();
  const navigate = useNavigate();
  return (
    <AuthShell title={props.done ? undefined : props.title} subtitle={props.subtitle}>
      <div data-testid={props.testId}>
        {props.done ??
          (props.loading ? (
            <Skeleton active paragraph={{ rows: 4 }} />
          ) : (
            <>
              {props.form.element}
              <Flex gap={8} className="kw-mt" vertical>
                <Button
                  type="primary"
                  size="large"
                  block
                  danger={props.danger}
                  loading={props.form.submitting}
                  disabled={props.form.submitDisabled}
                  onClick={() => props.form.form.submit()}
                  data-testid={props.submitTestId}
                >
                  {props.submitText}
                </Button>
                <Button
                  size="large"
                  block
                  onClick={() => navigate(PATHS.userInfo)}
                  data-testid="account-page-back"
                >
                  {t("account.backToInfo")}
                </Button>
              </Flex>
            </>
          ))}
      </div>
    </AuthShell>
  );
}

/** The success state of a change page, with the way back to the personal information. */
function Done({ title, testId }: { title: ReactNode; testId: string }) {
  const { t } = useLang();
  const navigate = useNavigate();
  return (
    <Result
      status="success"
      icon={<CheckCircleOutlined />}
      title={title}
      data-testid={testId}
      extra={
        <Button
          type="primary"
          onClick={() => navigate(PATHS.userInfo)}
          data-testid="account-done-back"
        >
          {t("account.backToInfo")}
        </Button>
      }
    />
  );
}

function ContactChange({ kind }: { kind: "phone" | "email" }) {
  const { t } = useLang();
  const user = useUserInfo();
  const [done, setDone] = useState(false);
  const form = useContactForm({
    kind,
    currentCountryCode: user.data?.countryCode,
    onDone: () => setDone(true),
  });
  const current = kind === "phone" ? user.data?.phone : user.data?.email;
  const currentText =
    kind === "phone" && user.data?.phone
      ? `+${user.data.countryCode} ${user.data.phone}`
      : (current ?? "");
  const title =
    kind === "phone"
      ? current
        ? t("safety.changePhone")
        : t("safety.bindPhone")
      : current
        ? t("safety.changeEmail")
        : t("safety.bindEmail");
  return (
    <ChangeFrame
      title={title}
      subtitle={current ? t("account.current", { value: currentText }) : undefined}
      testId={kind === "phone" ? "modify-phone-page" : "modify-email-page"}
      form={form}
      loading={user.isPending}
      submitText={t("common.save")}
      submitTestId={`change-${kind}-submit`}
      done={
        done ? (
          <Done
            title={kind === "phone" ? t("safety.phoneChanged") : t("safety.emailChanged")}
            testId={`change-${kind}-done`}
          />
        ) : undefined
      }
    />
  );
}

/** /modifyPhone: change (or add) the account phone with a code sent to the new number. */
export function ModifyPhonePage() {
  return (
    <RequireLogin>
      <ContactChange kind="phone" />
    </RequireLogin>
  );
}

/** /modifyEmail: change (or add) the account e-mail with a code sent to the new address. */
export function ModifyEmailPage() {
  return (
    <RequireLogin>
      <ContactChange kind="email" />
    </RequireLogin>
  );
}

function DeleteAccount() {
  const { t } = useLang();
  const form = useDeleteAccountForm();
  return (
    <ChangeFrame
      title={t("safety.deleteAccountTitle")}
      subtitle={t("safety.deleteAccountHint")}
      testId="delete-account-page"
      form={form}
      danger
      submitText={t("safety.deleteAccountSubmit")}
      submitTestId="delete-account-submit"
    />
  );
}

/** /deleteAccount: delete the account after the password and an explicit confirmation. */
export function DeleteAccountPage() {
  return (
    <RequireLogin>
      <DeleteAccount />
    </RequireLogin>
  );
}
