import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "./envelope.ts";

/**
 * Who is calling: resolved from the `cloudtoken` header only. The `token` cookie is the web
 * app's own storage and never a credential here: a browser attaches cookies to requests that
 * another page (a device's page on a visit host, a cross-site form) makes, but only script
 * on Keyway's own origin can set the header (docs/security.md).
 */
export interface Caller {
  userId: number;
  terminalId: number;
  role: "user" | "operator";
  token: string;
}

declare module "fastify" {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

export type ResolveToken = (token: string) => Promise<Omit<Caller, "token"> | null>;

export function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cloudtoken;
  const value = Array.isArray(header) ? header[0] : header;
  return value || undefined;
}

/** Route guard (run as preValidation, so a bad token is refused before the body is judged): 401 with hwcode 113 for a missing, unknown or expired token. */
export function requireUser(resolve: ResolveToken) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const token = tokenOf(request);
    const caller = token ? await resolve(token) : null;
    if (!caller || !token) throw new AppError("TOKEN_INVALID", null, 401);
    request.caller = { ...caller, token };
  };
}

export function requireOperator(resolve: ResolveToken) {
  const user = requireUser(resolve);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    await user(request, reply);
    if (request.caller?.role !== "operator") throw new AppError("NO_MANAGEMENT_ACCESS");
  };
}

/** The authenticated caller inside a guarded route: the one way a handler learns who calls. */
export function caller(request: FastifyRequest): Caller {
  if (!request.caller) throw new AppError("TOKEN_INVALID", null, 401);
  return request.caller;
}
