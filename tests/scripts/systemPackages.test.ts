import { describe, expect, it } from "vitest";
import {
  CI_PACKAGES,
  installAccess,
  installCommands,
  manualCommand,
  missingPackages,
  TEST_PACKAGES,
} from "../../scripts/system-packages.mjs";

/** A machine with just these files; PATH is /usr/local/bin:/usr/bin. */
function machine(files: string[]) {
  const set = new Set(files);
  return {
    env: { PATH: "/usr/local/bin:/usr/bin" },
    exists: (file: string) => set.has(file),
    list: (dir: string) => {
      const prefix = `${dir}/`;
      const names = [...set].filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
      if (names.length === 0) throw new Error(`ENOENT ${dir}`);
      return [...new Set(names.map((n) => n.split("/")[0] as string))];
    },
  };
}

const everything = [
  "/usr/bin/chromium",
  "/usr/sbin/mosquitto",
  "/usr/bin/redis-server",
  "/usr/bin/openssl",
  "/usr/lib/postgresql/15/bin/initdb",
  "/usr/sbin/nginx",
  "/usr/bin/systemd-analyze",
  "/usr/bin/podman",
  "/usr/sbin/runc",
  "/usr/bin/slirp4netns",
  "/usr/sbin/debootstrap",
  "/usr/bin/Xvnc",
  "/usr/bin/vncpasswd",
  "/usr/lib/python3.11/tkinter/__init__.py",
];
const ALL = [
  "chromium",
  "mosquitto",
  "redis-server",
  "openssl",
  "nginx",
  "postgresql",
  "systemd",
  "podman",
  "runc",
  "slirp4netns",
  "debootstrap",
  "tigervnc-standalone-server",
  "tigervnc-tools",
  "python3-tk",
];

describe("the Debian packages the tests need (scripts/system-packages.mjs)", () => {
  it("names what npm test starts, the same for CI", () => {
    expect(TEST_PACKAGES.map((p) => p.name)).toEqual(ALL);
    expect(CI_PACKAGES.map((p) => p.name)).toEqual(ALL);
  });

  it("reports nothing missing when every program is there", () => {
    expect(missingPackages(TEST_PACKAGES, machine(everything))).toEqual([]);
    expect(missingPackages(CI_PACKAGES, machine(everything))).toEqual([]);
  });

  it("reports a package as missing when its program is absent", () => {
    const without = (file: string) => machine(everything.filter((f) => f !== file));
    expect(missingPackages(TEST_PACKAGES, without("/usr/sbin/mosquitto"))).toEqual(["mosquitto"]);
    expect(missingPackages(TEST_PACKAGES, without("/usr/bin/chromium"))).toEqual(["chromium"]);
    expect(missingPackages(TEST_PACKAGES, without("/usr/bin/openssl"))).toEqual(["openssl"]);
    expect(missingPackages(CI_PACKAGES, without("/usr/lib/postgresql/15/bin/initdb"))).toEqual([
      "postgresql",
    ]);
    expect(missingPackages(TEST_PACKAGES, without("/usr/sbin/nginx"))).toEqual(["nginx"]);
    expect(missingPackages(TEST_PACKAGES, without("/usr/bin/Xvnc"))).toEqual([
      "tigervnc-standalone-server",
    ]);
    // Python itself is there (its standard library), its tkinter is not.
    const noTk = machine([
      ...everything.filter((f) => !f.includes("tkinter")),
      "/usr/lib/python3.11/os.py",
    ]);
    expect(missingPackages(TEST_PACKAGES, noTk)).toEqual(["python3-tk"]);
    expect(missingPackages(TEST_PACKAGES, machine([]))).toEqual(ALL);
  });

  it("looks redis-server up on PATH, as the tests start it", () => {
    const elsewhere = machine([
      ...everything.filter((f) => !f.endsWith("redis-server")),
      "/opt/redis/redis-server",
    ]);
    expect(missingPackages(TEST_PACKAGES, elsewhere)).toEqual(["redis-server"]);
    elsewhere.env.PATH = "/opt/redis:/usr/bin";
    expect(missingPackages(TEST_PACKAGES, elsewhere)).toEqual([]);
  });

  it("takes CHROMIUM_PATH's browser instead of Debian's", () => {
    const own = machine([...everything.filter((f) => f !== "/usr/bin/chromium"), "/opt/chrome"]);
    expect(missingPackages(TEST_PACKAGES, own)).toEqual(["chromium"]);
    expect(
      missingPackages(TEST_PACKAGES, { ...own, env: { ...own.env, CHROMIUM_PATH: "/opt/chrome" } }),
    ).toEqual([]);
  });

  it("installs as root or with passwordless sudo, otherwise not", () => {
    const noSudo = () => false;
    expect(installAccess({ uid: 0, canSudo: noSudo, hasApt: true })).toBe("root");
    expect(installAccess({ uid: 1000, canSudo: () => true, hasApt: true })).toBe("sudo");
    expect(installAccess({ uid: 1000, canSudo: noSudo, hasApt: true })).toBeNull();
    expect(installAccess({ uid: 0, canSudo: noSudo, hasApt: false })).toBeNull();
  });

  it("runs apt-get update, then a quiet non-interactive install of what is missing", () => {
    expect(installCommands(["mosquitto", "openssl"], "root")).toEqual([
      ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "update", "-qq"],
      [
        "env",
        "DEBIAN_FRONTEND=noninteractive",
        "apt-get",
        "install",
        "-y",
        "-qq",
        "mosquitto",
        "openssl",
      ],
    ]);
    expect(installCommands(["chromium"], "sudo")[1]).toEqual([
      "sudo",
      "-n",
      "env",
      "DEBIAN_FRONTEND=noninteractive",
      "apt-get",
      "install",
      "-y",
      "-qq",
      "chromium",
    ]);
    expect(manualCommand(["chromium", "redis-server"])).toBe(
      "sudo apt-get install -y chromium redis-server",
    );
  });
});
