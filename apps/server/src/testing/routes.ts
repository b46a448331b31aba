import type { FastifyInstance } from "fastify";

/** One route of the running app, with the field names its OpenAPI document gives (if any). */
export interface AppRoute {
  method: string;
  /** Fastify's pattern: `/api/msg/v1/detail/:id`, `/apiDoc/static/*`. */
  url: string;
  params: string[];
  query: string[];
  body: string[];
  /** The documented rule of each query and body field, to make values that pass it. */
  schemas: Record<string, FieldSchema>;
}

/** The parts of a JSON Schema (as the OpenAPI document gives a zod rule) that shape values. */
export interface FieldSchema {
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  items?: FieldSchema;
  anyOf?: FieldSchema[];
}

interface OpenApiSchema {
  properties?: Record<string, FieldSchema>;
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
}
interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: FieldSchema }[];
  requestBody?: { content?: Record<string, { schema?: OpenApiSchema }> };
}
type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

function propertiesOf(schema: OpenApiSchema | undefined): [string, FieldSchema][] {
  if (!schema) return [];
  const nested = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return [...Object.entries(schema.properties ?? {}), ...nested.flatMap(propertiesOf)];
}

/**
 * The routes Fastify's onRoute hook saw (`seen`, recorded by the test), with field names from
 * the app's OpenAPI document. HEAD twins of GET routes are left out (same handler, no body to
 * judge). Throws when a documented operation is missing, so a broken recording cannot shrink
 * the list silently.
 */
export function listRoutes(
  app: FastifyInstance,
  seen: { method: string | string[]; url: string }[],
): AppRoute[] {
  const doc = (app as unknown as { swagger(): OpenApiDocument }).swagger();
  const routes = new Map<string, AppRoute>();
  for (const route of seen) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === "HEAD") continue;
      const operation = doc.paths[route.url.replace(/:(\w+)/g, "{$1}")]?.[method.toLowerCase()];
      const content = Object.values(operation?.requestBody?.content ?? {});
      const query = (operation?.parameters ?? []).filter((p) => p.in === "query");
      const body = content.flatMap((c) => propertiesOf(c.schema));
      routes.set(`${method} ${route.url}`, {
        method,
        url: route.url,
        params: [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]),
        query: query.map((p) => p.name),
        body: [...new Set(body.map(([name]) => name))],
        schemas: Object.fromEntries([
          ...query.map((p): [string, FieldSchema] => [p.name, p.schema ?? {}]),
          ...body,
        ]),
      });
    }
  }
  for (const [path, operations] of Object.entries(doc.paths))
    for (const method of Object.keys(operations)) {
      const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`;
      if (method !== "head" && !routes.has(key)) throw new Error(`${key} was not recorded`);
    }
  return [...routes.values()];
}
