import { DEBOUNCE_MS } from "@keyway/shared";
import { useEffect, useState } from "react";

/** `value` once it has stopped changing for `delay` ms (SPEC §9: debounced calls 200-300 ms). */
export function useDebounced<T>(value: T, delay: number = DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delay);
    return () => window.clearTimeout(timer);
  }, [value, delay]);
  return settled;
}
