import type { z } from "zod";

/**
 * The API contract: each call written once as `{method, path, input, reply}` and used by the
 * server (registers it), the web client and the tests (call through it). See
 * docs/architecture/README.md "The API contract".
 */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** Who may call: anyone, a signed-in user (cloudtoken), or an operator. */
export type RouteAuth = "none" | "user" | "operator";

declare const replyOf: unique symbol;

export interface Route<
  I extends z.ZodType | undefined = z.ZodType | undefined,
  R = unknown,
  P extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: HttpMethod;
  /** The whole path in Fastify's syntax (`/api/user/v1/tokenInfo/:id`, `/eapi/...`). */
  path: string;
  /** The body (POST, PUT, DELETE) or the query string (GET). */
  input: I;
  /** Path parameters (`:id`). */
  params: P;
  auth: RouteAuth;
  summary: string;
  tags: readonly string[];
  /**
   * SPEC §8 "on SMS and alarm calls": hwcode 404 logs out, 1.2 s logout delay, a persistent
   * 504 notice. Declared per group, so the web client never guesses from the path.
   */
  smsAlarm: boolean;
  /** DELETE calls whose fields may come in the body or the query string (clients send either). */
  bodyOrQuery: boolean;
  /** Type only: what `hwdata` holds on success. */
  readonly [replyOf]?: R;
}

/** The part of a route its group does not give. */
interface RouteSpec<I extends z.ZodType | undefined, P extends z.ZodType | undefined> {
  method: HttpMethod;
  path: string;
  summary: string;
  input?: I;
  params?: P;
  auth?: RouteAuth;
  smsAlarm?: boolean;
  bodyOrQuery?: boolean;
}

/** A route whose reply is `R`: `route<Machine[]>()({ method, path, input, summary })`. */
export function route<R = null>() {
  return <I extends z.ZodType | undefined = undefined, P extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<I, P>,
    // NoInfer: the group's parameter type must not pick I and P for a spec without input.
  ): RouteSpec<NoInfer<I>, NoInfer<P>> & { readonly [replyOf]?: R } => spec;
}

interface GroupDefaults {
  /** Declared once for the group; a route may say otherwise (a public lookup). */
  auth: RouteAuth;
  tags: readonly string[];
  smsAlarm?: boolean;
}

type Grouped<S> = S extends RouteSpec<infer I, infer P> & { readonly [replyOf]?: infer R }
  ? Route<I, R, P>
  : never;

/** A domain's routes with the group's auth, tags and transport rule filled in. */
export function group<
  const T extends Record<string, RouteSpec<z.ZodType | undefined, z.ZodType | undefined>>,
>(defaults: GroupDefaults, routes: T): { [K in keyof T]: Grouped<T[K]> } {
  const out: Record<string, Route> = {};
  for (const [name, spec] of Object.entries(routes)) {
    out[name] = {
      input: undefined,
      params: undefined,
      ...spec,
      auth: spec.auth ?? defaults.auth,
      tags: defaults.tags,
      smsAlarm: spec.smsAlarm ?? defaults.smsAlarm ?? false,
      bodyOrQuery: spec.bodyOrQuery ?? false,
    };
  }
  return out as { [K in keyof T]: Grouped<T[K]> };
}

export type InputOf<R> =
  R extends Route<infer I, unknown, z.ZodType | undefined>
    ? I extends z.ZodType
      ? z.input<I>
      : undefined
    : never;
export type ParsedInputOf<R> =
  R extends Route<infer I, unknown, z.ZodType | undefined>
    ? I extends z.ZodType
      ? z.output<I>
      : undefined
    : never;
export type ParamsOf<R> =
  R extends Route<z.ZodType | undefined, unknown, infer P>
    ? P extends z.ZodType
      ? z.output<P>
      : undefined
    : never;
export type ReplyOf<R> =
  R extends Route<z.ZodType | undefined, infer Out, z.ZodType | undefined> ? Out : never;

/** The path with its `:name` parameters filled in (URL-encoded). */
export function pathOf(route: Pick<Route, "path">, params?: Record<string, unknown>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new Error(`${route.path}: no ${name}`);
    return encodeURIComponent(String(value));
  });
}
