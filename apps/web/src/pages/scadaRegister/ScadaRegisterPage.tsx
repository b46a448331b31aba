import { ApartmentOutlined, MailOutlined, UserOutlined } from "@ant-design/icons";
import {
  DEFAULT_COUNTRY_CODE,
  SCADA_LIMITS,
  SCADA_REPLY_HOURS,
  type ScadaRegistration,
  scadaRegisterForm,
} from "@keyway/shared";
import { useMutation } from "@tanstack/react-query";
import { Button, Col, Form, Input, InputNumber, Result, Row } from "antd";
import { useState } from "react";
import { Link } from "react-router";
import { portalApi } from "../../api/portal.ts";
import { brand } from "../../brand/brand.ts";
import { AuthShell } from "../../components/AuthShell.tsx";
import { EmailField } from "../../components/form/EmailField.tsx";
import { PhoneField } from "../../components/form/PhoneField.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { PATHS } from "../../paths.ts";

const INITIAL = { countryCode: DEFAULT_COUNTRY_CODE, deviceCount: 1 };

/**
 * scadaRegister (SPEC §2): a public form, checked here and on the server with the same
 * schema; support receives it by e-mail and answers within SCADA_REPLY_HOURS hours, which
 * the confirmation says.
 */
export function ScadaRegisterPage() {
  const { t } = useLang();
  const [form] = Form.useForm();
  const rule = useZodRule(scadaRegisterForm);
  const register = useMutation({ mutationFn: portalApi.scadaRegister });
  const [done, setDone] = useState<ScadaRegistration | null>(null);

  if (done) {
    return (
      <AuthShell wide>
        <Result
          status="success"
          title={t("portal.scada.doneTitle")}
          subTitle={t("portal.scada.doneText", {
            name: done.contactName,
            email: done.email,
            hours: SCADA_REPLY_HOURS,
          })}
          data-testid="scada-done"
          extra={[
            <Button
              key="again"
              onClick={() => {
                setDone(null);
                form.resetFields();
              }}
              data-testid="scada-again"
            >
              {t("portal.scada.another")}
            </Button>,
            <Link key="login" to={PATHS.login}>
              <Button type="primary">{t("portal.scada.toLogin")}</Button>
            </Link>,
          ]}
        />
      </AuthShell>
    );
  }

  return (
    <AuthShell
      wide
      title={t("portal.scada.title")}
      subtitle={t("portal.scada.subtitle", { hours: SCADA_REPLY_HOURS })}
    >
      <Form
        form={form}
        layout="vertical"
        initialValues={INITIAL}
        requiredMark
        data-testid="scada-form"
        onFinish={async (values) => {
          const body = parseForm(scadaRegisterForm, { ...values, oemid: brand.id });
          try {
            await register.mutateAsync(body);
          } catch {
            // The client showed the server's message (rate limit, daily cap, a field).
            return;
          }
          setDone(body);
        }}
      >
        <Row gutter={16}>
          <Col span={24}>
            <Form.Item
              name="company"
              label={t("portal.scada.company")}
              rules={[rule("company")]}
              required
            >
              <Input
                prefix={<ApartmentOutlined />}
                placeholder={t("portal.scada.companyPlaceholder")}
                maxLength={SCADA_LIMITS.company}
                data-testid="scada-company"
              />
            </Form.Item>
          </Col>
          <Col span={24}>
            <Form.Item
              name="contactName"
              label={t("portal.scada.contactName")}
              rules={[rule("contactName")]}
              required
            >
              <Input
                prefix={<UserOutlined />}
                placeholder={t("placeholder.name")}
                autoComplete="name"
                data-testid="scada-contact"
              />
            </Form.Item>
          </Col>
          <Col span={24}>
            <PhoneField
              rule={rule}
              label={t("portal.scada.phone")}
              required
              countryTestId="scada-country"
              phoneTestId="scada-phone"
              autoComplete="tel"
            />
          </Col>
          <Col span={24}>
            <EmailField
              rule={rule}
              label={
                <span>
                  <MailOutlined /> {t("portal.scada.email")}
                </span>
              }
              testId="scada-email"
              autoComplete="email"
            />
          </Col>
          <Col xs={24} md={16}>
            <Form.Item
              name="projectName"
              label={t("portal.scada.projectName")}
              rules={[rule("projectName")]}
              required
            >
              <Input
                placeholder={t("portal.scada.projectPlaceholder")}
                maxLength={SCADA_LIMITS.projectName}
                data-testid="scada-project"
              />
            </Form.Item>
          </Col>
          <Col xs={24} md={8}>
            <Form.Item
              name="deviceCount"
              label={t("portal.scada.deviceCount")}
              rules={[rule("deviceCount")]}
              required
            >
              <InputNumber
                min={SCADA_LIMITS.deviceCount.min}
                max={SCADA_LIMITS.deviceCount.max}
                precision={0}
                style={{ width: "100%" }}
                data-testid="scada-devices"
              />
            </Form.Item>
          </Col>
          <Col span={24}>
            <Form.Item
              name="description"
              label={t("portal.scada.description")}
              rules={[rule("description")]}
              required
            >
              <Input.TextArea
                rows={4}
                showCount
                maxLength={SCADA_LIMITS.description}
                placeholder={t("portal.scada.descriptionPlaceholder")}
                data-testid="scada-description"
              />
            </Form.Item>
          </Col>
        </Row>
        <Button
          type="primary"
          htmlType="submit"
          size="large"
          block
          loading={register.isPending}
          data-testid="scada-submit"
        >
          {t("portal.scada.submit")}
        </Button>
      </Form>
    </AuthShell>
  );
}
