import { useMutation } from "@tanstack/react-query";
import { App } from "antd";
import { visitsApi } from "../../api/visits.ts";
import { useLang } from "../../i18n/index.ts";
import { downloadBlob } from "../../lib/csv.ts";

/**
 * "Export CSV" of a device's visit activity (one visit's with `visitId`): the server's file
 * (GET /device/v1/visits/activity.csv, in the page's language) fetched with the login token
 * and saved; a refusal shows the server's message (the mutation cache's error toast).
 */
export function useActivityExport(deviceId: number, visitId?: string) {
  const { t, lang } = useLang();
  const { message } = App.useApp();
  return useMutation({
    mutationFn: () =>
      visitsApi.activityCsv({ deviceId, visitId, lang: lang === "en" ? "en" : "zh" }),
    onSuccess: ({ blob, filename }) => {
      downloadBlob(filename, blob);
      message.success(t("device.visits.exported"));
    },
  });
}
