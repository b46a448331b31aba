import { DeleteOutlined, MailOutlined, MobileOutlined, PlusOutlined } from "@ant-design/icons";
import {
  type AlarmContact,
  alarmContactAddBody,
  type ContactKind,
  DEFAULT_COUNTRY_CODE,
  LIMITS,
} from "@keyway/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App, Button, Card, Flex, Form, Input, Table, type TableProps, Typography } from "antd";
import { useState } from "react";
import { alarmPushApi } from "../../api/alarmPush.ts";
import { queryKeys } from "../../api/keys.ts";
import { ConfirmActionLink } from "../../components/ConfirmActionLink.tsx";
import { FormModal } from "../../components/FormModal.tsx";
import { PhoneField } from "../../components/form/PhoneField.tsx";
import { ListEmpty } from "../../components/ListEmpty.tsx";
import { useLang } from "../../i18n/index.ts";
import { formatDateTime } from "../../lib/format.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { errorText, rowsOf } from "./parts.tsx";

/**
 * Alarm contacts of the context (SPEC §3 "Mail receiver": name, email; alarm phones): extra
 * phones and mail receivers that get the alarm pushes. Add in a modal form, delete after a
 * confirmation. In an enterprise, admins manage them; members see them.
 */
export function ContactsTab({ eid }: { eid: number }) {
  const { t } = useLang();
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState<ContactKind | null>(null);
  const key = queryKeys.alarmPush(eid, "contacts");
  const contacts = useQuery({
    queryKey: key,
    queryFn: () => alarmPushApi.contacts(eid),
    meta: { silent: true },
  });
  const entConfig = useQuery({
    queryKey: queryKeys.alarmPush(eid, "entConfig"),
    queryFn: () => alarmPushApi.entConfig(eid),
    enabled: eid !== 0,
    meta: { silent: true },
  });
  const canManage = eid === 0 || entConfig.data?.isAdmin === true;
  const remove = useMutation({ mutationFn: (id: number) => alarmPushApi.removeContact(eid, id) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: key });

  const { list } = rowsOf(contacts);
  const phones = list.filter((c) => c.kind === "phone");
  const mails = list.filter((c) => c.kind === "email");

  const actionColumn: NonNullable<TableProps<AlarmContact>["columns"]>[number] = {
    title: t("common.action"),
    key: "action",
    width: 100,
    align: "center",
    render: (_: unknown, c) => (
      <ConfirmActionLink
        title={t("alarmPush.contacts.deleteConfirm", { name: c.name })}
        okText={t("common.delete")}
        label={t("common.delete")}
        icon={<DeleteOutlined />}
        loading={remove.isPending && remove.variables === c.id}
        testId={`contact-delete-${c.id}`}
        confirmTestId="contact-delete-confirm"
        action={() => remove.mutateAsync(c.id)}
        successText={t("alarmPush.contacts.deleted")}
        onDone={refresh}
      />
    ),
  };
  const nameColumn = {
    title: t("alarmPush.contacts.name"),
    dataIndex: "name",
    ellipsis: true,
  };
  const timeColumn = {
    title: t("alarmPush.contacts.addedAt"),
    dataIndex: "createTime",
    width: 180,
    render: (v: number) => <span className="kw-nowrap">{formatDateTime(v)}</span>,
  };

  const phoneColumns: TableProps<AlarmContact>["columns"] = [
    nameColumn,
    {
      title: t("field.phone"),
      key: "phone",
      render: (_: unknown, c) => (
        <span className="kw-code">
          +{c.countryCode || DEFAULT_COUNTRY_CODE} {c.phone}
        </span>
      ),
    },
    timeColumn,
    ...(canManage ? [actionColumn] : []),
  ];
  const mailColumns: TableProps<AlarmContact>["columns"] = [
    nameColumn,
    { title: t("field.email"), dataIndex: "email", ellipsis: true },
    timeColumn,
    ...(canManage ? [actionColumn] : []),
  ];

  const table = (kind: ContactKind, rows: AlarmContact[]) => (
    <Table<AlarmContact>
      rowKey="id"
      size="middle"
      columns={kind === "phone" ? phoneColumns : mailColumns}
      dataSource={rows}
      loading={contacts.isFetching}
      pagination={false}
      scroll={{ x: 560 }}
      onRow={(c) =>
        ({
          "data-testid": `contact-row-${kind}`,
          "data-name": c.name,
        }) as React.HTMLAttributes<HTMLElement>
      }
      locale={{
        emptyText: (
          <ListEmpty
            error={errorText(contacts)}
            onRetry={() => contacts.refetch()}
            description={
              kind === "phone" ? t("alarmPush.contacts.noPhones") : t("alarmPush.contacts.noMails")
            }
          />
        ),
      }}
    />
  );

  const addButton = (kind: ContactKind) =>
    canManage && (
      <Button
        type="primary"
        icon={<PlusOutlined />}
        onClick={() => setAdding(kind)}
        data-testid={`contact-add-${kind}`}
      >
        {kind === "phone" ? t("alarmPush.contacts.addPhone") : t("alarmPush.contacts.addMail")}
      </Button>
    );

  return (
    <Flex vertical gap={16} data-testid="contacts">
      <Typography.Text type="secondary">
        {eid === 0 ? t("alarmPush.contacts.hintPersonal") : t("alarmPush.contacts.hintEnterprise")}
        {!canManage && entConfig.data && <> {t("alarmPush.adminOnly")}</>}
      </Typography.Text>
      <Card
        className="kw-card"
        title={
          <span>
            <MobileOutlined /> {t("alarmPush.contacts.phones")}
          </span>
        }
        extra={addButton("phone")}
        data-testid="contacts-phones"
      >
        {table("phone", phones)}
      </Card>
      <Card
        className="kw-card"
        title={
          <span>
            <MailOutlined /> {t("alarmPush.contacts.mails")}
          </span>
        }
        extra={addButton("email")}
        data-testid="contacts-mails"
      >
        {table("email", mails)}
      </Card>
      <AddContactModal eid={eid} kind={adding} onClose={() => setAdding(null)} onAdded={refresh} />
    </Flex>
  );
}

function AddContactModal(props: {
  eid: number;
  kind: ContactKind | null;
  onClose: () => void;
  onAdded: () => Promise<unknown>;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const [form] = Form.useForm();
  const rule = useZodRule(alarmContactAddBody);
  const add = useMutation({
    mutationFn: (body: ReturnType<typeof alarmContactAddBody.parse>) =>
      alarmPushApi.addContact(props.eid, body),
  });
  const kind = props.kind ?? "email";

  return (
    <FormModal
      title={kind === "phone" ? t("alarmPush.contacts.addPhone") : t("alarmPush.contacts.addMail")}
      open={props.kind !== null}
      onClose={props.onClose}
      form={form}
      submitting={add.isPending}
      submitTestId="contact-submit"
      submitText={t("alarmPush.contacts.add")}
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        preserve={false}
        initialValues={{ kind, countryCode: DEFAULT_COUNTRY_CODE }}
        onFinish={async (values) => {
          const body = parseForm(alarmContactAddBody, { ...values, kind });
          try {
            await add.mutateAsync(
              kind === "phone"
                ? { ...body, email: undefined }
                : { ...body, phone: undefined, countryCode: undefined },
            );
          } catch {
            return;
          }
          message.success(t("alarmPush.contacts.added"));
          await props.onAdded();
          props.onClose();
        }}
      >
        <Form.Item name="kind" hidden>
          <Input />
        </Form.Item>
        <Form.Item
          name="name"
          label={t("alarmPush.contacts.name")}
          rules={[rule("name")]}
          extra={t("alarmPush.contacts.nameHint", {
            min: LIMITS.mailReceiverName.min,
            max: LIMITS.mailReceiverName.max,
          })}
        >
          <Input autoFocus maxLength={40} data-testid="contact-name" />
        </Form.Item>
        {kind === "phone" ? (
          <PhoneField
            rule={rule}
            label={t("field.phone")}
            countryTestId="contact-country"
            phoneTestId="contact-phone"
            // Someone else's number, not the user's own.
            placeholder={t("alarmPush.contacts.phonePlaceholder")}
          />
        ) : (
          <Form.Item
            name="email"
            label={t("field.email")}
            rules={[rule("email")]}
            extra={t("alarmPush.contacts.emailHint", { max: LIMITS.mailReceiverEmail.max })}
          >
            <Input
              // Someone else's address, not the user's own ("Enter your e-mail address").
              placeholder={t("alarmPush.contacts.emailPlaceholder")}
              inputMode="email"
              data-testid="contact-email"
            />
          </Form.Item>
        )}
      </Form>
    </FormModal>
  );
}
