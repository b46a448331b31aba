/** localStorage that never throws (private mode, disabled storage). */
export const safeStorage = {
  get(key: string): string | null {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key: string, value: string): void {
    try {
      window.localStorage.setItem(key, value);
    } catch {
      // storage unavailable: the value lives for this page only
    }
  },
  remove(key: string): void {
    try {
      window.localStorage.removeItem(key);
    } catch {
      // ignore
    }
  },
};

export const STORAGE_KEY = {
  store: "keyway.store",
  version: "keyway.version",
  lang: "keyway.lang",
  terminalUUID: "keyway.terminalUUID",
  /** Which `token` cookie is ours (see session.ts getToken). */
  tokenCopy: "keyway.token",
} as const;
