import { useEffect, useState } from "react";
import { CONSENT_WAIT_MS } from "../../lib/visit.ts";

/**
 * Seconds left for the person at the machine to answer, counted from `since` (when the visit
 * URL call was sent): the server refuses the visit once CONSENT_WAIT_MS have passed.
 */
export function consentSecondsLeft(since: number, now: number = Date.now()): number {
  return Math.max(0, Math.ceil((since + CONSENT_WAIT_MS - now) / 1000));
}

/** The seconds left, re-rendered every quarter second while it runs. */
export function useConsentSecondsLeft(since: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === null) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 250);
    return () => window.clearInterval(timer);
  }, [since]);
  return since === null ? 0 : consentSecondsLeft(since, now);
}

/** A text with `{{seconds}}` in it, counting down (a notification's description). */
export function ConsentCountdown({
  since,
  render,
}: {
  since: number;
  render: (seconds: number) => string;
}) {
  const seconds = useConsentSecondsLeft(since);
  return (
    <span data-testid="consent-countdown" data-seconds={seconds}>
      {render(seconds)}
    </span>
  );
}
