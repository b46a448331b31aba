import { useQuery } from "@tanstack/react-query";
import { enterprisesApi } from "../../api/enterprises.ts";
import { queryKeys } from "../../api/keys.ts";
import { useLang } from "../../i18n/index.ts";
import { hasToken } from "../../lib/session.ts";

/**
 * Whether the signed-in user may create an enterprise now: `allowed` (their brand's operator
 * switch), `full` (ENTERPRISES_PER_USER reached), `canCreate` both fine.
 */
export function useEnterpriseCreation() {
  const query = useQuery({
    queryKey: queryKeys.enterpriseCreation,
    queryFn: enterprisesApi.creation,
    enabled: hasToken(),
    staleTime: 60_000,
    meta: { silent: true },
  });
  const data = query.data;
  const full = data ? data.created >= data.limit : false;
  return {
    query,
    allowed: data?.allowed ?? false,
    full,
    canCreate: !!data && data.allowed && !full,
  };
}

/** Why the user cannot create an enterprise now, or null when they can (or it is unknown). */
export function useCreationBlocker(): string | null {
  const { t } = useLang();
  const { query, allowed, full } = useEnterpriseCreation();
  if (!query.data) return null;
  if (!allowed) return t("entCreate.disabled");
  if (full) return t("entCreate.limitReached", { limit: query.data.limit });
  return null;
}
