import type { ParamsOf, ParsedInputOf, ReplyOf, Route, RouteAuth } from "@keyway/shared";
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
  preSerializationAsyncHookHandler,
} from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { type Caller, caller } from "./auth.ts";
import { AppError, ok } from "./envelope.ts";

/** What a handler gets: the parsed input and path parameters, and who calls. */
export interface Call<R extends Route> {
  input: ParsedInputOf<R>;
  params: ParamsOf<R>;
  /** The signed-in caller (refused with 113 where the route has none). */
  readonly caller: Caller;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * A handler answers the route's reply type, wrapped in the SPEC envelope by `serve`; a route
 * whose reply is null may answer nothing (a service call that returns nothing).
 */
// biome-ignore lint/suspicious/noConfusingVoidType: what a service call returning Promise<void> gives
type Answer<R extends Route> = ReplyOf<R> | (null extends ReplyOf<R> ? void : never);
export type Handler<R extends Route> = (call: Call<R>) => Promise<Answer<R>> | Answer<R>;

export interface ServeOptions {
  /** Route config, e.g. a stricter rate limit. */
  config?: FastifyContextConfig;
  /** A route whose failures answer in its own shape (SPEC: activeAccount's 0, account's 420). */
  preSerialization?: preSerializationAsyncHookHandler;
}

export type Serve = <R extends Route>(
  route: R,
  handler: Handler<R>,
  options?: ServeOptions,
) => void;

/**
 * Registers contract routes (packages/shared/src/contract/): the path, schema, OpenAPI
 * summary and guard all come from the route, so a module's routes.ts only names the service
 * call. The guard runs as preValidation, so a bad token is refused before the body is judged.
 */
export function routesOn(
  app: FastifyInstance,
  guards: Record<Exclude<RouteAuth, "none">, preHandlerAsyncHookHandler>,
): Serve {
  const r = app.withTypeProvider<ZodTypeProvider>();
  return (route, handler, options = {}) => {
    const input = route.method === "GET" ? "querystring" : "body";
    r.route({
      method: route.method,
      url: route.path,
      schema: {
        tags: [...route.tags],
        summary: route.summary,
        // Fields in the body or the query: the body, when sent, is judged by the schema,
        // the merged fields again in the handler.
        ...(route.input && {
          [input]: route.bodyOrQuery ? route.input.nullish() : route.input,
        }),
        ...(route.params && { params: route.params }),
        // The document asks for the cloudtoken everywhere but on public calls.
        ...(route.auth === "none" && { security: [] }),
      },
      ...(route.auth !== "none" && { preValidation: guards[route.auth] }),
      config: options.config,
      ...(options.preSerialization && { preSerialization: options.preSerialization }),
      handler: async (request, reply) => {
        const result = await handler({
          input: (route.bodyOrQuery
            ? bodyOrQuery(route, request)
            : request[input === "body" ? "body" : "query"]) as never,
          params: request.params as never,
          get caller() {
            return caller(request);
          },
          request,
          reply,
        });
        // A handler that answered itself (a file, a redirect) returns the reply.
        return result === (reply as unknown) ? reply : ok(result ?? null);
      },
    });
  };
}

/** The fields of the body, else of the query string, judged by the route's input schema. */
function bodyOrQuery(route: Route, request: FastifyRequest): unknown {
  const fields = { ...(request.query as object), ...(request.body as object | null) };
  const parsed = route.input?.safeParse(fields);
  if (!parsed || parsed.success) return parsed?.data;
  const issue = parsed.error.issues[0];
  throw AppError.invalid(String(issue?.path[0] ?? ""), issue?.message ?? "v.required");
}
