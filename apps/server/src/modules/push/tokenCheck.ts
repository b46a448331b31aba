/** Who holds a socket: `accounts.authenticateMany`'s answer for its token. */
export interface PushIdentity {
  userId: number;
  terminalId: number;
  role: string;
}

/** Looks tokens up (hashed, in the database): those known and not expired, by token. */
export type TokenLookup = (tokens: readonly string[]) => Promise<ReadonlyMap<string, PushIdentity>>;

interface Waiting {
  token: string;
  resolve: (identity: PushIdentity | null) => void;
  reject: (error: unknown) => void;
}

/**
 * The token check of `/ws` connects, batched (docs/architecture/push.md#connecting): the
 * connects that arrive in one turn of the event loop are looked up in one query, so that a
 * burst of them (every client coming back after a restart) costs a few queries instead of
 * one each. A lookup always starts after its connect arrived and never joins one already
 * running, so a token revoked before the connect is refused exactly as without batching.
 */
export function createTokenCheck(lookup: TokenLookup, maxBatch = 500) {
  let queue: Waiting[] = [];

  function flush() {
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(maxBatch);
    if (queue.length) setImmediate(flush);
    lookup([...new Set(batch.map((w) => w.token))]).then(
      (found) => {
        for (const waiting of batch) waiting.resolve(found.get(waiting.token) ?? null);
      },
      (error: unknown) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }

  return (token: string): Promise<PushIdentity | null> =>
    new Promise((resolve, reject) => {
      if (queue.push({ token, resolve, reject }) === 1) setImmediate(flush);
    });
}
