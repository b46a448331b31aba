import { QR_LOGIN } from "@keyway/shared";

/** The desktop QR panel's states (QrLoginPanel.tsx). */
export type QrStatus = "loading" | "active" | "scanned" | "expired" | "cancelled" | "error";

/**
 * What the panel does as its countdown ticks, `msLeft` being the QR's time left by the local
 * clock (negative once past):
 * - "closing": an unscanned QR is about to end: check it once more before renewing it (a
 *   phone may have scanned it since the last poll) — see `afterClosingCheck`;
 * - "expire": a scanned QR whose phone never confirmed, well past the server's pick-up
 *   grace (QR_LOGIN.pickUpSeconds): stop polling;
 * - "none": nothing; a scanned QR keeps being polled through the grace, since a phone that
 *   confirmed in the last seconds leaves it to be collected for QR_LOGIN.pickUpSeconds more.
 */
export function qrTick(status: QrStatus, msLeft: number): "none" | "closing" | "expire" {
  if (status === "active" && msLeft <= QR_LOGIN.refreshBeforeSeconds * 1000) return "closing";
  // Two polls beyond the grace: the server has answered "expired" by then unless unreachable.
  const graceMs = (QR_LOGIN.pickUpSeconds * 1000 + 2 * QR_LOGIN.pollMs) * -1;
  if (status === "scanned" && msLeft <= graceMs) return "expire";
  return "none";
}

/**
 * The last check of a closing QR decides: scanned or confirmed → keep it (scanned / log in);
 * otherwise a new QR while renewals are left and the tab is in view, else "expired".
 */
export function afterClosingCheck(
  answer: "waiting" | "scanned" | "confirmed" | "refused",
  canRenew: boolean,
): "scanned" | "confirmed" | "renew" | "expire" {
  if (answer === "scanned" || answer === "confirmed") return answer;
  return canRenew ? "renew" : "expire";
}
