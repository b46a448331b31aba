// The Debian packages the tests need besides Node: the one list, used by scripts/test.mjs
// (`npm test`) and .ci/run. Uses only Node built-ins, because it runs before `npm install`.
//
//   node scripts/system-packages.mjs [--ci]            prints the missing packages, one line
//   node scripts/system-packages.mjs [--ci] --install  installs them (as root or with
//                                                      passwordless sudo) or says how, exit 1
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * What `npm test` starts besides Node (checked in the place the tests start it from):
 * `program` is an absolute path, a name looked up on PATH, or a path with one `*` segment.
 */
export const TEST_PACKAGES = [
  // The browser tests (tests/e2e/browser.ts; CHROMIUM_PATH points them at another browser).
  { name: "chromium", program: (env) => env.CHROMIUM_PATH || "/usr/bin/chromium" },
  // The MQTT broker of the server tests (apps/server/src/testing/mosquitto.ts).
  { name: "mosquitto", program: "/usr/sbin/mosquitto" },
  // Redis of the multi-node push tests, started by name (apps/server/src/testing/redis.ts).
  { name: "redis-server", program: "redis-server" },
  // The reporting tests' self-signed certificate (apps/server/src/testing/reportReceiver.ts).
  { name: "openssl", program: "/usr/bin/openssl" },
  // The deployment tests (tests/deploy/): the repository's nginx config in front of two
  // server processes on a PostgreSQL server of their own, and `systemd-analyze verify` of
  // the units.
  { name: "nginx", program: "/usr/sbin/nginx" },
  { name: "postgresql", program: "/usr/lib/postgresql/*/bin/initdb" },
  { name: "systemd", program: "/usr/bin/systemd-analyze" },
  // The container image test (tests/deploy/container.test.ts): podman builds and runs
  // deploy/container/Containerfile under runc, the container on a network of its own through
  // slirp4netns; debootstrap makes the local stand-in of its base image (no registry here).
  { name: "podman", program: "/usr/bin/podman" },
  { name: "runc", program: "/usr/sbin/runc" },
  { name: "slirp4netns", program: "/usr/bin/slirp4netns" },
  { name: "debootstrap", program: "/usr/sbin/debootstrap" },
  // The remote screen tests and `npm run bench -- vnc` (apps/server/src/testing/vnc.ts): a
  // real VNC server (TigerVNC's Xvnc), its password file made by vncpasswd, and a tkinter
  // program in known colours on its screen, run by Debian's /usr/bin/python3 (python3-tk
  // gives that python its tkinter package, under /usr/lib/python3.N/).
  { name: "tigervnc-standalone-server", program: "/usr/bin/Xvnc" },
  { name: "tigervnc-tools", program: "/usr/bin/vncpasswd" },
  { name: "python3-tk", program: "/usr/lib/*/tkinter/__init__.py" },
];

/** CI runs the same tests, against a PostgreSQL server of its own too (.ci/run). */
export const CI_PACKAGES = TEST_PACKAGES;

function found(program, { env, exists, list }) {
  const star = program.indexOf("/*/");
  if (star >= 0) {
    const dir = program.slice(0, star);
    const rest = program.slice(star + 3);
    let entries = [];
    try {
      entries = list(dir);
    } catch {
      return false;
    }
    return entries.some((entry) => exists(path.join(dir, entry, rest)));
  }
  if (path.isAbsolute(program)) return exists(program);
  return (env.PATH ?? "")
    .split(path.delimiter)
    .some((dir) => dir !== "" && exists(path.join(dir, program)));
}

/** The names of the packages whose program is not there. */
export function missingPackages(
  packages = TEST_PACKAGES,
  { env = process.env, exists = existsSync, list = readdirSync } = {},
) {
  return packages
    .filter(({ program }) => {
      const where = typeof program === "function" ? program(env) : program;
      return !found(where, { env, exists, list });
    })
    .map(({ name }) => name);
}

/** How we may install: "root", "sudo" (passwordless), or null when we may not. */
export function installAccess({
  uid = process.getuid?.(),
  canSudo = () => spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0,
  hasApt = existsSync("/usr/bin/apt-get"),
} = {}) {
  if (!hasApt) return null;
  if (uid === 0) return "root";
  return canSudo() ? "sudo" : null;
}

/** The commands that install `names` (argv arrays), run as root or through `sudo -n`. */
export function installCommands(names, access) {
  const apt = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get"];
  const prefix = access === "sudo" ? ["sudo", "-n", ...apt] : apt;
  return [
    [...prefix, "update", "-qq"],
    [...prefix, "install", "-y", "-qq", ...names],
  ];
}

/** The one command a user runs when we may not install. */
export const manualCommand = (names) => `sudo apt-get install -y ${names.join(" ")}`;

/**
 * Makes sure the packages are there: installs what is missing where it may (one line says
 * what), otherwise prints the one command to run and exits 1.
 */
export function ensureSystemPackages(packages = TEST_PACKAGES, who = "npm test") {
  const missing = missingPackages(packages);
  if (missing.length === 0) return;
  const access = installAccess();
  if (access === null) {
    console.error(`${who} needs ${missing.join(", ")}; install with: ${manualCommand(missing)}`);
    process.exit(1);
  }
  console.log(
    `Installing the Debian packages ${who} needs: apt-get install ${missing.join(" ")}${access === "sudo" ? " (sudo)" : ""}`,
  );
  for (const [command, ...args] of installCommands(missing, access)) {
    // apt-get's progress is noise here; its errors (stderr) are not.
    const result = spawnSync(command, args, { stdio: ["ignore", "ignore", "inherit"] });
    if (result.status !== 0) {
      console.error(
        `${who}: ${command} ${args.join(" ")} failed (${result.status ?? result.error})`,
      );
      process.exit(1);
    }
  }
  const still = missingPackages(packages);
  if (still.length > 0) {
    console.error(`${who}: still missing after apt-get install: ${still.join(", ")}`);
    process.exit(1);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const packages = process.argv.includes("--ci") ? CI_PACKAGES : TEST_PACKAGES;
  if (process.argv.includes("--install")) {
    ensureSystemPackages(packages, process.argv.includes("--ci") ? "CI" : "npm test");
  } else {
    const missing = missingPackages(packages);
    if (missing.length > 0) console.log(missing.join(" "));
  }
}
