import type { z } from "zod";

export type Values = Record<string, unknown>;

function shapeKeys(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * The validation-message key (e.g. "v.phone") of `field` when `values` are parsed by the same
 * zod schema the server uses, or undefined when the field is fine.
 *
 * Object-level refinements (phone format per country code, passwords match) do not run while
 * another field is still missing, so a second pass fills missing fields with "" first.
 */
export function zodFieldIssue(
  schema: z.ZodType,
  values: Values,
  field: string,
): string | undefined {
  const first = schema.safeParse(values);
  if (first.success) return undefined;
  const own = first.error.issues.find((issue) => issue.path[0] === field);
  if (own) return own.message;

  const filled: Values = { ...values };
  for (const key of shapeKeys(schema)) {
    if (filled[key] === undefined || filled[key] === null) filled[key] = "";
  }
  const second = schema.safeParse(filled);
  if (second.success) return undefined;
  return second.error.issues.find((issue) => issue.path[0] === field)?.message;
}
