/**
 * Where visits live (docs/architecture/remote-access.md): the visit host of a visit id, and
 * the visit id a request's Host names. Only names under the configured domain count: with
 * VISIT_DOMAIN `<id>.<VISIT_DOMAIN>`, else `<id>.visit.<PUBLIC_URL host>`; any port (a proxy
 * may or may not keep it). `<id>.visit.evil.example` is not a visit of this platform.
 */
export interface VisitHosts {
  /** `http(s)://<id>.<visit domain>[:port]`, or null when no sub-domain can exist (an IP). */
  originOf(id: string): string | null;
  /** The visit id a Host header names, or null. */
  idOfHost(host: string | undefined): string | null;
  /** The domain visit hosts sit under, or null (IP public host: path mode only). */
  readonly domain: string | null;
  /** Whether visit hosts are on a registrable domain of their own (VISIT_DOMAIN). */
  readonly dedicated: boolean;
}

const ID = "[a-z2-7]{26}";

export function createVisitHosts(options: {
  publicUrl: string;
  visitDomain?: string | null;
}): VisitHosts {
  const publicUrl = new URL(options.publicUrl);
  const hostname = publicUrl.hostname.toLowerCase();
  const isIp = /^[\d.]+$/.test(hostname) || hostname.includes(":") || hostname.startsWith("[");
  const domain = options.visitDomain ?? (isIp ? null : `visit.${hostname}`);
  const pattern = domain
    ? new RegExp(`^(${ID})\\.${domain.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}\\.?(?::\\d{1,5})?$`)
    : null;
  let lastHost = "";
  let lastId: string | null = null;
  return {
    domain,
    dedicated: Boolean(options.visitDomain),
    originOf(id) {
      if (!domain) return null;
      const port = publicUrl.port ? `:${publicUrl.port}` : "";
      return `${publicUrl.protocol}//${id}.${domain}${port}`;
    },
    idOfHost(host) {
      if (!pattern || !host) return null;
      // Every request of a visit names the same host: the last answer is kept.
      if (host === lastHost) return lastId;
      const id = pattern.exec(host.toLowerCase())?.[1] ?? null;
      lastHost = host;
      lastId = id;
      return id;
    },
  };
}
