import { API } from "@keyway/shared";
import type { Serve } from "../../../http/routes.ts";
import type { QrLoginService } from "../qrLogin.ts";
import { contextOf, terminalOf } from "../requestContext.ts";
import { CHECK_LIMIT } from "./limits.ts";

/** Per-IP limits of the QR login: a desktop asks for a QR every two minutes and polls. */
const QR_TOKEN_LIMIT = { rateLimit: { max: 10, timeWindow: "1 minute" } };
const QR_CHECK_LIMIT = { rateLimit: { max: 90, timeWindow: "1 minute" } };

/** QR-code login (SPEC §7 getQrToken, qrLoginCheck; the phone's scan and confirm). */
export function qrLoginRoutes(serve: Serve, { qrLogin }: { qrLogin: QrLoginService }) {
  const q = API.qrLogin;
  serve(
    q.issue,
    ({ input, request }) =>
      qrLogin.issue(
        {
          keepLogin: input.keepLogin ?? false,
          oemId: input.loginOemId,
          terminal: terminalOf(input),
        },
        contextOf(request, input.loginOemId),
        `${request.protocol}://${request.host}`,
      ),
    { config: QR_TOKEN_LIMIT },
  );
  serve(q.check, ({ input, request }) => qrLogin.check(input.checkToken, contextOf(request)), {
    config: QR_CHECK_LIMIT,
  });
  serve(q.scan, ({ input }) => qrLogin.scan(input.qrToken), { config: CHECK_LIMIT });
  serve(
    q.answer,
    async ({ caller, input }) => {
      await qrLogin.answer(input.qrToken, caller, input.confirm);
      return null;
    },
    { config: CHECK_LIMIT },
  );
}
