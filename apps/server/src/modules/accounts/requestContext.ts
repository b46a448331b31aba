import { type Brand, brandById, brandForHost, type Lang } from "@keyway/shared";
import type { FastifyRequest } from "fastify";
import { requestLang } from "../../http/lang.ts";

/** What the account services need of a request: its language, brand and address. */
export interface RequestContext {
  lang: Lang;
  brand: Brand;
  ip: string;
}

/** The terminal a login names (each field optional: the server fills in defaults). */
export interface TerminalInfo {
  uuid?: string;
  type?: string;
  name?: string;
  os?: string;
}

/** The request's context; a payload's brand id (oemId) wins over the host's brand. */
export function contextOf(request: FastifyRequest, oemId?: string): RequestContext {
  return {
    lang: requestLang(request),
    brand: brandById(oemId) ?? brandForHost(request.hostname),
    ip: request.ip,
  };
}

/** The terminal fields of a login payload (password login and QR login alike). */
export function terminalOf(body: {
  terminalUUID?: string;
  terminalType?: string;
  terminalName?: string;
  terminalOS?: string;
}): TerminalInfo {
  return {
    uuid: body.terminalUUID,
    type: body.terminalType,
    name: body.terminalName,
    os: body.terminalOS,
  };
}
