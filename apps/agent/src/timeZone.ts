import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * The device's IANA time zone, sent with each alarm, read from the system's own files as the C
 * library does: `TZ`, then the zone `/etc/localtime` links to, then `/etc/timezone`. Only where
 * none of them names a zone is `Intl` asked: on Node.js its first `DateTimeFormat` loads ICU's
 * locale data, 6.8 MiB of the agent's resident memory (decision 221). A link's own name is
 * kept ("Asia/Kolkata", where ICU says "Asia/Calcutta"); the UTC aliases are "UTC", as there.
 */
export interface TimeZoneSources {
  tz?: string;
  localtime: string;
  timezoneFile: string;
  zoneinfo: string;
  /** Where the files name nothing: the runtime's answer. */
  fallback: () => string | undefined;
}

const SYSTEM: TimeZoneSources = {
  tz: undefined,
  localtime: "/etc/localtime",
  timezoneFile: "/etc/timezone",
  zoneinfo: process.env.TZDIR || "/usr/share/zoneinfo",
  fallback: () => Intl.DateTimeFormat().resolvedOptions().timeZone,
};

/** A zone's name as the tz database writes it: "Asia/Shanghai", "America/Argentina/Salta". */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;

/** The names ECMA-402 gives as "UTC" (what Intl answered before). */
const UTC_ALIASES = new Set(
  "Etc/UTC Etc/UCT Etc/Universal Etc/Zulu UCT Universal Zulu Etc/GMT Etc/GMT0 Etc/GMT+0 Etc/GMT-0 Etc/Greenwich GMT GMT0 GMT+0 GMT-0 Greenwich".split(
    " ",
  ),
);

/** The zone a `TZ` value or a path names, when this system has it; else undefined. */
function zoneNamed(text: string | undefined, zoneinfo: string): string | undefined {
  const value = text?.trim().replace(/^:/, "");
  if (!value) return undefined;
  const at = value.lastIndexOf("zoneinfo/");
  // "posix/" and "right/" are the same zones without and with leap seconds.
  const name = (at >= 0 ? value.slice(at + "zoneinfo/".length) : value).replace(
    /^(posix|right)\//,
    "",
  );
  // POSIX rules ("CST-8") and anything else that is no zone file here are not a name.
  if (name.length > 64 || !ZONE_NAME.test(name) || !existsSync(join(zoneinfo, name))) return;
  return UTC_ALIASES.has(name) ? "UTC" : name;
}

function read(path: string, how: (path: string) => string): string | undefined {
  try {
    return how(path);
  } catch {
    return undefined;
  }
}

export function hostTimeZone(sources: Partial<TimeZoneSources> = {}): string {
  const s: TimeZoneSources = { ...SYSTEM, tz: process.env.TZ, ...sources };
  // A TZ that is no zone here (a POSIX rule such as "CST-8") rules the local time over the files.
  if (s.tz) return zoneNamed(s.tz, s.zoneinfo) ?? s.fallback() ?? "UTC";
  return (
    zoneNamed(read(s.localtime, readlinkSync), s.zoneinfo) ??
    zoneNamed(
      read(s.timezoneFile, (path) => readFileSync(path, "utf8")),
      s.zoneinfo,
    ) ??
    s.fallback() ??
    "UTC"
  );
}
