/** Per-IP limits; per-account limits live in the services (login lock, code throttle). */
export const LOGIN_LIMIT = { rateLimit: { max: 20, timeWindow: "1 minute" } };
export const CODE_LIMIT = { rateLimit: { max: 10, timeWindow: "1 minute" } };
export const CHECK_LIMIT = { rateLimit: { max: 30, timeWindow: "1 minute" } };
