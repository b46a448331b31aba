import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { App } from "antd";
import { enterpriseAdminApi, enterprisesApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";

/**
 * The enterprise's projects switch (enterprisePermission: enableProject, canSetProject): `set`
 * switches, says so and refreshes what depends on it; false when the server refused (shown by
 * the client's error handler).
 */
export function useProjectSetting(eid: number) {
  const { t } = useLang();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const permission = useQuery({
    queryKey: queryKeys.enterprisePermission(eid),
    queryFn: () => enterprisesApi.permission(eid),
    meta: { silent: true },
  });
  const mutation = useMutation({ mutationFn: enterpriseAdminApi.setProject });
  const set = async (on: boolean): Promise<boolean> => {
    try {
      await mutation.mutateAsync({ eid, enableProject: on ? 1 : 0 });
    } catch {
      return false;
    }
    message.success(on ? t("entCreate.projectsOn") : t("entCreate.projectsOff"));
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.enterpriseAll(eid) }),
      queryClient.invalidateQueries({ queryKey: queryKeys.userEnterprises }),
    ]);
    return true;
  };
  return { permission: permission.data, pending: mutation.isPending, set };
}
