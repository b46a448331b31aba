import type { App } from "antd";

/**
 * antd's message / notification / modal bound to the App context (theme, locale), reachable
 * from code outside components (the API client). Filled by <FeedbackBridge/> at start-up.
 */
export type Feedback = ReturnType<typeof App.useApp>;

let current: Feedback | null = null;

export function setFeedback(feedback: Feedback): void {
  current = feedback;
}

export function feedback(): Feedback | null {
  return current;
}
