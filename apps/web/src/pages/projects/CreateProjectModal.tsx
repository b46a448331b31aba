import { projectAddBody } from "@keyway/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { App, Form } from "antd";
import { queryKeys } from "../../api/keys.ts";
import { type ProjectListQuery, type ProjectView, projectsApi } from "../../api/projects.ts";
import { FormModal } from "../../components/FormModal.tsx";
import { useLang } from "../../i18n/index.ts";
import { parseForm, useZodRule } from "../../lib/zodRule.tsx";
import { ProjectFields } from "./ProjectFields.tsx";

const createForm = projectAddBody.omit({ eid: true, type: true });

const INITIAL = {
  name: "",
  description: "",
  server: "",
  report_state: false,
  interval: 0,
  enable_get_visit_url: false,
};

/** "New project" in the current enterprise list; the answer's key is shown once after. */
export function CreateProjectModal({
  open,
  query,
  onClose,
  onCreated,
}: {
  open: boolean;
  query: ProjectListQuery;
  onClose: () => void;
  onCreated: (project: ProjectView) => void;
}) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [form] = Form.useForm();
  const rule = useZodRule(createForm);
  const add = useMutation({ mutationFn: projectsApi.add });
  return (
    <FormModal
      title={t("project.newProject")}
      open={open}
      onClose={onClose}
      form={form}
      submitting={add.isPending}
      submitTestId="project-create-submit"
      submitText={t("project.newProject")}
    >
      <Form
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={INITIAL}
        preserve={false}
        onFinish={async (values) => {
          const body = parseForm(createForm, values);
          let project: ProjectView;
          try {
            project = await add.mutateAsync({ ...body, eid: query.eid, type: query.type });
          } catch {
            return;
          }
          message.success(t("project.createdOk"));
          await queryClient.invalidateQueries({ queryKey: queryKeys.projectsAll });
          onCreated(project);
        }}
        data-testid="project-create-form"
      >
        <ProjectFields rule={rule} prefix="project-create" />
      </Form>
    </FormModal>
  );
}
