import * as z from "zod/mini";

/**
 * A string of at most `max` characters (and at least `min`). The device-facing schemas are
 * written with zod/mini, not zod's classic API: they are all the agent's bundle takes of zod,
 * and the classic API would be 40 % of that bundle and put the agent's heap past where V8
 * starts whole-heap collections (decision 215).
 */
export function text(max: number, min = 0) {
  return min > 0
    ? z.string().check(z.minLength(min), z.maxLength(max))
    : z.string().check(z.maxLength(max));
}
