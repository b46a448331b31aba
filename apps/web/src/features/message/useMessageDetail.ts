import { useQuery, useQueryClient } from "@tanstack/react-query";
import { queryKeys } from "../../api/keys.ts";
import { messagesApi } from "../../api/messages.ts";

/**
 * One message opened from a list (GET /msg/v1/detail/:id, which marks it read). The lists and
 * the badge are refreshed when the answer arrives, inside the fetch itself: a reader who closes
 * the message before it arrives leaves no observer of it, and the row must still turn read.
 */
export function useMessageDetail(id: number | null) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: queryKeys.message(id ?? 0),
    queryFn: async () => {
      const message = await messagesApi.detail(id ?? 0);
      void queryClient.invalidateQueries({ queryKey: queryKeys.messagePages });
      void queryClient.invalidateQueries({ queryKey: queryKeys.totalUnread });
      return message;
    },
    enabled: id !== null,
  });
}
