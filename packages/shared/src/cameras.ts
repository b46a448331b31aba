import { z } from "zod";
import { CAMERA_ACCOUNT, LIMITS } from "./constants.ts";
import { flagField, idField } from "./fields.ts";

/**
 * Camera cloud accounts (SPEC §3 "Camera account": name, AppKey, Secret, remark, default
 * flag; §5 "non-empty"; §7 the EZVIZ calls). Personal context only. Paths → body → hwdata:
 *   GET    /api/device/v1/ezviz/account       cameraAccountListQuery   CameraAccountList
 *                                             (with machineId: also that device's ezviz_account_id)
 *   POST   /api/device/v1/ezviz/account       cameraAccountAddBody     CameraAccountView
 *   DELETE /api/device/v1/ezviz/account       cameraAccountIdBody      null (its devices are released)
 *   POST   /api/user/updateEzvizAccount       cameraAccountUpdateBody  CameraAccountView
 *   POST   /api/user/checkEzvizAppkey         cameraAppKeyCheckBody    CameraAppKeyCheck (nothing stored)
 *   POST   /api/user/checkEzvizAccount        cameraAccountCheckBody   CameraAccountView (re-checked
 *                                             at EZVIZ now; 5 per account per day)
 *   POST   /api/machine/changeEzvizAccount    cameraBindBody           CameraBinding (Akey only)
 *   POST   /api/machine/releaseEzvizAccount   cameraReleaseBody        CameraBinding (Akey only)
 * The Secret goes in, never out: every answer carries it masked (CAMERA_SECRET_MASK + its
 * last characters).
 */

/** Account state after the last check at EZVIZ. */
export const CAMERA_ACCOUNT_STATE = { unchecked: 0, valid: 1, invalid: 2 } as const;
export type CameraAccountState = (typeof CAMERA_ACCOUNT_STATE)[keyof typeof CAMERA_ACCOUNT_STATE];

export const CAMERA_SECRET_MASK = "********";

/** The masked form of a Secret: the mask plus its last 4 characters when it is long enough. */
export function maskCameraSecret(secret: string): string {
  return secret.length >= 12 ? `${CAMERA_SECRET_MASK}${secret.slice(-4)}` : CAMERA_SECRET_MASK;
}

const requiredText = (max: number) =>
  z
    .string({ error: "v.required" })
    .trim()
    .min(1, { error: "v.required" })
    .max(max, { error: "v.text" });

export const cameraAccountNameField = requiredText(CAMERA_ACCOUNT.nameMax);
/** AppKey and Secret: non-empty (SPEC §5); no spaces inside, as EZVIZ issues them. */
export const cameraAppKeyField = requiredText(CAMERA_ACCOUNT.appKeyMax).regex(/^\S+$/, {
  error: "v.text",
});
export const cameraSecretField = requiredText(CAMERA_ACCOUNT.secretMax).regex(/^\S+$/, {
  error: "v.text",
});
export const cameraRemarkField = z
  .string({ error: "v.remark" })
  .trim()
  .max(LIMITS.remark.max, { error: "v.remark" });

export const cameraAccountAddBody = z.object({
  name: cameraAccountNameField,
  appKey: cameraAppKeyField,
  secret: cameraSecretField,
  remark: cameraRemarkField.default(""),
  isDefault: flagField.default(false),
});

/** Editing: a blank Secret keeps the stored one (the form never holds it). */
export const cameraAccountUpdateBody = z.object({
  id: idField,
  name: cameraAccountNameField,
  appKey: cameraAppKeyField,
  secret: z
    .union([z.literal(""), cameraSecretField])
    .optional()
    .transform((v) => v || undefined),
  remark: cameraRemarkField.default(""),
  isDefault: flagField.default(false),
});

/** The web's edit form: the same fields with the Secret optional. */
export const cameraAccountEditForm = cameraAccountUpdateBody.omit({ id: true });

export const cameraAppKeyCheckBody = z.object({
  appKey: cameraAppKeyField,
  secret: cameraSecretField,
});

/** Without id: the default account. */
export const cameraAccountCheckBody = z.object({ id: idField.optional() });
export const cameraAccountIdBody = z.object({ id: idField });
export const cameraAccountListQuery = z.object({ machineId: idField.optional() });
export const cameraBindBody = z.object({ machineId: idField, ezvizAccountId: idField });
export const cameraReleaseBody = z.object({ machineId: idField });

export interface CameraAccountView {
  id: number;
  name: string;
  app_key: string;
  /** Always masked. */
  secret: string;
  remark: string;
  is_default: 0 | 1;
  state: CameraAccountState;
  /** Cameras on the EZVIZ account at the last check (null: unknown). */
  camera_count: number | null;
  /** The hwcode of the last failed check ("" when it passed or never ran). */
  check_code: string;
  checked_at: string | null;
  /** Account re-checks left in the rolling day (SPEC §9: 5 per day). */
  checks_left: number;
  /** Devices bound to the account. */
  machine_count: number;
  created_at: string;
}

export interface CameraAccountList {
  list: CameraAccountView[];
  total: number;
  /** Only when machineId was asked: the device and the account bound to it (0: none). */
  machine_id?: number;
  ezviz_account_id?: number;
}

export interface CameraAppKeyCheck {
  valid: true;
  /** Cameras on that EZVIZ account. */
  camera_count: number;
}

export interface CameraBinding {
  machine_id: number;
  /** 0 after a release. */
  ezviz_account_id: number;
}
