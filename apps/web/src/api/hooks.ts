import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { hasToken } from "../lib/session.ts";
import { useAppStore } from "../store/app.ts";
import { queryKeys } from "./keys.ts";
import { userApi } from "./user.ts";

/** GET /user/selectInfo, mirrored into the persisted store (instant header after a reload). */
export function useUserInfo() {
  const cached = useAppStore((s) => s.user);
  const setUser = useAppStore((s) => s.setUser);
  const query = useQuery({
    queryKey: queryKeys.userInfo,
    queryFn: userApi.selectInfo,
    enabled: hasToken(),
    placeholderData: cached ?? undefined,
  });
  useEffect(() => {
    if (query.data && !query.isPlaceholderData) setUser(query.data);
  }, [query.data, query.isPlaceholderData, setUser]);
  return query;
}
