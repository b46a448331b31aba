/** react-query keys in one place. */
export const queryKeys = {
  userInfo: ["user", "info"] as const,
  terminals: (page: number) => ["user", "terminals", page] as const,
  terminalsAll: ["user", "terminals"] as const,
  outbox: (page: number, pageSize: number) => ["operator", "outbox", page, pageSize] as const,
};
