import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostTimeZone, type TimeZoneSources } from "./timeZone.ts";

// A system's zone files in a folder of their own: zoneinfo, /etc/localtime, /etc/timezone.
const root = mkdtempSync(join(tmpdir(), "kw-tz-"));
const zoneinfo = join(root, "zoneinfo");
const zones = ["Asia/Shanghai", "Europe/Berlin", "Etc/UTC", "America/Argentina/Salta"];
for (const zone of [...zones, "posix/Asia/Tokyo", "Asia/Tokyo"]) {
  mkdirSync(dirname(join(zoneinfo, zone)), { recursive: true });
  writeFileSync(join(zoneinfo, zone), "TZif");
}
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
/** A system whose /etc/localtime links to `link` (a copy when `copy`) and /etc/timezone says `file`. */
function system(o: { link?: string; copy?: boolean; file?: string; tz?: string }) {
  const etc = join(root, `etc${n++}`);
  mkdirSync(etc);
  const localtime = join(etc, "localtime");
  if (o.link && o.copy) writeFileSync(localtime, "TZif");
  else if (o.link) symlinkSync(join(zoneinfo, o.link), localtime);
  const timezoneFile = join(etc, "timezone");
  if (o.file !== undefined) writeFileSync(timezoneFile, o.file);
  const asked: string[] = [];
  const sources: TimeZoneSources = {
    tz: o.tz,
    localtime,
    timezoneFile,
    zoneinfo,
    fallback: () => {
      asked.push("Intl");
      return "Pacific/Auckland";
    },
  };
  return { sources, asked };
}

describe("the device's time zone, as its alarms carry it", () => {
  it("is the zone /etc/localtime links to, without asking Intl", () => {
    const { sources, asked } = system({ link: "Asia/Shanghai", file: "Europe/Berlin\n" });
    expect(hostTimeZone(sources)).toBe("Asia/Shanghai");
    // Some systems link to the "posix/" copy of the tz database: the name is the zone's.
    expect(hostTimeZone(system({ link: "posix/Asia/Tokyo" }).sources)).toBe("Asia/Tokyo");
    const deep = system({ link: "America/Argentina/Salta" });
    expect(hostTimeZone(deep.sources)).toBe("America/Argentina/Salta");
    expect([...asked, ...deep.asked]).toEqual([]);
  });

  it("takes TZ first: a name, ':name' or a zone file's path", () => {
    for (const tz of ["Europe/Berlin", ":Europe/Berlin", `${zoneinfo}/Europe/Berlin`]) {
      expect(hostTimeZone(system({ link: "Asia/Shanghai", tz }).sources)).toBe("Europe/Berlin");
    }
  });

  it("reads /etc/timezone when /etc/localtime is a copy, not a link", () => {
    const { sources, asked } = system({
      link: "Asia/Shanghai",
      copy: true,
      file: "Europe/Berlin\n",
    });
    expect(hostTimeZone(sources)).toBe("Europe/Berlin");
    expect(asked).toEqual([]);
  });

  it("says UTC for the UTC aliases, as Intl does", () => {
    expect(hostTimeZone(system({ link: "Etc/UTC" }).sources)).toBe("UTC");
  });

  it("asks Intl where the files name no zone this system has, or TZ is a POSIX rule", () => {
    const cases = [
      system({}), // neither file
      system({ link: "Asia/Shanghai", copy: true }), // a copy and no /etc/timezone
      system({ file: "Mars/Olympus_Mons\n" }), // a name with no zone file here
      system({ file: "../../etc/passwd" }), // not a zone name at all
      system({ link: "Asia/Shanghai", tz: "CST-8" }), // TZ's rule rules, not the link
    ];
    for (const { sources, asked } of cases) {
      expect(hostTimeZone(sources)).toBe("Pacific/Auckland");
      expect(asked).toEqual(["Intl"]);
    }
  });

  it("on this machine, names the zone Intl names", () => {
    expect(hostTimeZone()).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
