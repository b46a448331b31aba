import { App } from "antd";
import { useEffect } from "react";
import { setFeedback } from "../lib/feedback.ts";

/** Hands antd's context-aware message/notification/modal to non-component code. */
export function FeedbackBridge() {
  const api = App.useApp();
  useEffect(() => setFeedback(api), [api]);
  return null;
}
