import type { ProvisionedDevice } from "@keyway/shared";
import { toCsv } from "../../lib/csv.ts";

export const PROVISION_CSV_HEADER = [
  "machineCode",
  "devicePassword",
  "deviceSecret",
  "model",
] as const;

/** The one-time provisioning result as CSV (what the operator downloads). */
export function provisionCsv(list: readonly ProvisionedDevice[]): string {
  return toCsv(
    PROVISION_CSV_HEADER,
    list.map((d) => [d.machineCode, d.devicePassword, d.deviceSecret, d.model]),
  );
}
