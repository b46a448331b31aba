import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { feedback } from "../lib/feedback.ts";
import { ApiError } from "./errors.ts";

declare module "@tanstack/react-query" {
  interface Register {
    queryMeta: { silent?: boolean };
    mutationMeta: { silent?: boolean };
  }
}

/** Shows a failed call's message unless the session handler already did or the caller opts out. */
export function showError(error: unknown): void {
  if (error instanceof ApiError && error.kind === "session") return;
  const text = error instanceof Error ? error.message : String(error);
  feedback()?.message.error(text);
}

export const queryClient = new QueryClient({
  queryCache: new QueryCache({
    onError: (error, query) => {
      if (!query.meta?.silent) showError(error);
    },
  }),
  mutationCache: new MutationCache({
    onError: (error, _vars, _ctx, mutation) => {
      if (!mutation.meta?.silent) showError(error);
    },
  }),
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 },
    mutations: { retry: false },
  },
});
