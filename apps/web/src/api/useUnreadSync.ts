import { useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { hasToken } from "../lib/session.ts";
import { useAppStore } from "../store/app.ts";
import { queryKeys } from "./keys.ts";
import { messagesApi } from "./messages.ts";

/** Reads the unread message total and keeps the store's badge count in step with it. */
export function useUnreadSync(): void {
  const setUnread = useAppStore((s) => s.setUnread);
  const unread = useQuery({
    queryKey: queryKeys.totalUnread,
    queryFn: messagesApi.totalUnread,
    enabled: hasToken(),
    meta: { silent: true },
  });
  useEffect(() => {
    if (unread.data) setUnread(unread.data.totalUnreadMsg);
  }, [unread.data, setUnread]);
}
