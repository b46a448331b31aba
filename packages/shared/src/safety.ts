import { z } from "zod";
import { PAGE_SIZE } from "./constants.ts";
import { flagField, pageField } from "./fields.ts";

/**
 * The SPEC §7 calls whose payloads the SPEC does not show (docs/architecture/accounts.md#account-calls-the-spec-leaves-open):
 * `POST /api/user/selectFriendsList`, `POST /api/safety/update`, and the logout's `token`.
 */

/** `POST /api/user/selectFriendsList`: paged like the terminal list. */
export const friendsListBody = z.object({
  page: pageField.default(1),
  pageSize: pageField.max(100, { error: "v.page" }).default(PAGE_SIZE.tokenList),
});

/** Someone the caller shares a device with (as its Akey / Bkey, or under one). */
export interface FriendEntry {
  userid: number;
  name: string;
  /** Masked phone or e-mail: enough to recognise, not to harvest. */
  account: string;
  /** Devices the two share. */
  devices: number;
}

/** `POST /api/safety/update`: the security centre's switches. */
export const safetyUpdateBody = z.object({ hideMap: flagField });

export interface SafetySettings {
  hideMap: 0 | 1;
}

/** `POST /api/user/logout`: another terminal's token of the caller's (default: this one). */
export const logoutBody = z.object({
  token: z.string().trim().max(200, { error: "v.text" }).optional(),
});
