import { type ListResult, type OutboxEntry, tokenInfoQuery } from "../accounts.ts";
import { group, route } from "./route.ts";

/** The operator reads the outbox: what the platform sent, or would have sent. */
export const notify = group(
  { auth: "operator", tags: ["operator"] },
  {
    listOutbox: route<ListResult<OutboxEntry>>()({
      method: "GET",
      path: "/api/operator/v1/outbox",
      summary: "Outgoing e-mails and SMS",
      input: tokenInfoQuery,
    }),
  },
);
