import {
  DEFAULT_COUNTRY_CODE,
  INDICATOR_CLEAR_MS,
  type MemberKind,
  STORAGE_VERSION,
  type UserInfo,
} from "@keyway/shared";
import { create } from "zustand";
import { createJSONStorage, persist } from "zustand/middleware";
import { STORAGE_KEY, safeStorage } from "../lib/storage.ts";

/**
 * Client state of SPEC §3 "Client state kept" / §4 "Session". The SPEC gives only some of the
 * numeric meanings; the rest are ours and written down here (apps/web/README.md repeats them).
 */
export const LOGIN_STATE = {
  /** Initial, and after sign-out (SPEC). */
  initial: 0,
  submitting: 1,
  signedIn: 2,
  failed: 3,
  /** Login refused with 07010111: the account still needs its activation code. */
  needsActivation: 4,
  /** The token was refused (hwcode 113 / HTTP 401). */
  expired: 5,
} as const;
export type LoginState = (typeof LOGIN_STATE)[keyof typeof LOGIN_STATE];

export const REGISTER_STATE = { form: 1, activate: 2 } as const;
export type RegisterState = (typeof REGISTER_STATE)[keyof typeof REGISTER_STATE];

export const USER_STATE = {
  idle: 0,
  /** SPEC: 1 after a name (or e-mail) change. */
  nameChanged: 1,
  passwordChanged: 2,
  phoneChanged: 3,
  hideMapChanged: 4,
  terminalRemoved: 5,
  accountDeleted: 6,
  /** SPEC: 7 after an e-mail change. */
  emailChanged: 7,
  /** SPEC: sign-out resets the user state to 8. */
  signedOut: 8,
} as const;
export type UserState = (typeof USER_STATE)[keyof typeof USER_STATE];

/** SPEC §2 "Choosing an entry stores a device type": 0 personal, 1 enterprise, 2 maintenance. */
export type DeviceType = 0 | 1 | 2;

/**
 * SPEC §3 Enterprise (eid 0 means personal), as POST /enterprises/userEnterpriseList returns
 * it (`EnterpriseSummary`), with the caller's kinds of membership and admin flag.
 */
export interface EnterpriseInfo {
  eid: number;
  name: string;
  enableProject: 0 | 1;
  platformName?: string;
  applyLogoUrl?: string;
  kinds?: MemberKind[];
  isAdmin?: 0 | 1;
}

export interface MessageCenterState {
  totalUnreadMsg: number;
}

/** The part of the SMS data that is persisted (SPEC: "part of the SMS data"). */
export interface SmsDataState {
  eid: number;
}

interface PersistedState {
  version: string;
  user: UserInfo | null;
  userId: number | null;
  messageCenter: MessageCenterState;
  smsData: SmsDataState;
  /** The selected context per user id (eid 0 = personal devices). */
  enterpriseInfos: Record<string, EnterpriseInfo>;
  enterprisesList: EnterpriseInfo[];
}

interface VolatileState {
  loginState: LoginState;
  registerState: RegisterState;
  userState: UserState;
  countryCode: string;
  deviceType: DeviceType;
  error: string | null;
  success: string | null;
}

interface Actions {
  setLoginState(state: LoginState): void;
  setRegisterState(state: RegisterState): void;
  setUserState(state: UserState): void;
  setCountryCode(code: string): void;
  setDeviceType(type: DeviceType): void;
  signedIn(userId: number): void;
  setUser(user: UserInfo): void;
  setEnterprises(list: EnterpriseInfo[]): void;
  selectContext(enterprise: EnterpriseInfo | null): void;
  setUnread(total: number): void;
  /** Error / success indicators clear themselves after INDICATOR_CLEAR_MS. */
  flashError(text: string): void;
  flashSuccess(text: string): void;
  /** SPEC §4: sign-out resets login state 0 and user state 8. */
  signOut(): void;
}

export type AppState = PersistedState & VolatileState & Actions;

export const PERSONAL_CONTEXT: EnterpriseInfo = { eid: 0, name: "", enableProject: 0 };

const persistedDefaults = (): PersistedState => ({
  version: STORAGE_VERSION,
  user: null,
  userId: null,
  messageCenter: { totalUnreadMsg: 0 },
  smsData: { eid: 0 },
  enterpriseInfos: {},
  enterprisesList: [],
});

const volatileDefaults = (): VolatileState => ({
  loginState: LOGIN_STATE.initial,
  registerState: REGISTER_STATE.form,
  userState: USER_STATE.idle,
  countryCode: DEFAULT_COUNTRY_CODE,
  deviceType: 0,
  error: null,
  success: null,
});

/** SPEC §4: local storage is reset when its version key is not v1.0. */
export function ensureStorageVersion(): void {
  if (safeStorage.get(STORAGE_KEY.version) !== STORAGE_VERSION) {
    safeStorage.remove(STORAGE_KEY.store);
    safeStorage.set(STORAGE_KEY.version, STORAGE_VERSION);
  }
}
ensureStorageVersion();

const timers: { error?: number; success?: number } = {};

export const useAppStore = create<AppState>()(
  persist(
    (set, get) => ({
      ...persistedDefaults(),
      ...volatileDefaults(),
      setLoginState: (loginState) => set({ loginState }),
      setRegisterState: (registerState) => set({ registerState }),
      setUserState: (userState) => set({ userState }),
      setCountryCode: (countryCode) => set({ countryCode }),
      setDeviceType: (deviceType) => set({ deviceType }),
      signedIn: (userId) => {
        const previous = get().userId;
        set({
          loginState: LOGIN_STATE.signedIn,
          userState: USER_STATE.idle,
          userId,
          // Another account on this browser must not see the previous one's cached data.
          ...(previous !== userId
            ? { user: null, enterprisesList: [], messageCenter: { totalUnreadMsg: 0 } }
            : {}),
        });
      },
      setUser: (user) => set({ user, userId: user.id }),
      setEnterprises: (enterprisesList) => set({ enterprisesList }),
      selectContext: (enterprise) => {
        const { userId, enterpriseInfos } = get();
        if (userId === null) return;
        set({
          enterpriseInfos: { ...enterpriseInfos, [userId]: enterprise ?? PERSONAL_CONTEXT },
          deviceType: enterprise && enterprise.eid !== 0 ? 1 : 0,
        });
      },
      setUnread: (totalUnreadMsg) => set({ messageCenter: { totalUnreadMsg } }),
      flashError: (error) => {
        window.clearTimeout(timers.error);
        set({ error });
        timers.error = window.setTimeout(() => set({ error: null }), INDICATOR_CLEAR_MS);
      },
      flashSuccess: (success) => {
        window.clearTimeout(timers.success);
        set({ success });
        timers.success = window.setTimeout(() => set({ success: null }), INDICATOR_CLEAR_MS);
      },
      signOut: () =>
        set({
          ...persistedDefaults(),
          ...volatileDefaults(),
          enterpriseInfos: get().enterpriseInfos,
          loginState: LOGIN_STATE.initial,
          userState: USER_STATE.signedOut,
        }),
    }),
    {
      name: STORAGE_KEY.store,
      version: 1,
      storage: createJSONStorage(() => window.localStorage),
      partialize: (s): PersistedState => ({
        version: s.version,
        user: s.user,
        userId: s.userId,
        messageCenter: s.messageCenter,
        smsData: s.smsData,
        enterpriseInfos: s.enterpriseInfos,
        enterprisesList: s.enterprisesList,
      }),
      merge: (persisted, current) => {
        const stored = persisted as Partial<PersistedState> | undefined;
        if (!stored || stored.version !== STORAGE_VERSION) return current;
        return { ...current, ...stored };
      },
    },
  ),
);

/** The context (personal or an enterprise) currently selected by the signed-in user. */
export function selectCurrentContext(s: AppState): EnterpriseInfo {
  if (s.userId === null) return PERSONAL_CONTEXT;
  const chosen = s.enterpriseInfos[s.userId];
  if (!chosen || chosen.eid === 0) return PERSONAL_CONTEXT;
  // An enterprise the user has left falls back to personal.
  return s.enterprisesList.find((e) => e.eid === chosen.eid) ?? PERSONAL_CONTEXT;
}
