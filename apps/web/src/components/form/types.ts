import type { FormRule } from "antd";

/** A field → rule function from `useZodRule(schema)` (validation stays with the shared zod schema). */
export type FieldRule = (field: string) => FormRule;
