import { readFileSync, statSync } from "node:fs";

/**
 * Where a secret (the device secret of `run`, the login token of `forward`) comes from. A
 * process's arguments are public on the machine (`ps`, /proc/<pid>/cmdline are readable by
 * every local user); its environment and a file of mode 0600 are not. So, in this order:
 *   1. `--<name>-file PATH` or `--<name> VALUE` (one of the two; VALUE is discouraged),
 *   2. the environment variable (`KEYWAY_AGENT_SECRET`, `KEYWAY_AGENT_TOKEN`).
 * The command line wins over the environment, as an explicit choice over an ambient one.
 */
export interface SecretSources {
  /** What it is, for messages: "device secret", "login token". */
  what: string;
  /** The option's name without dashes: "secret", "token". */
  option: string;
  /** Its value on the command line, if given. */
  value?: string;
  /** The `--<option>-file` path, if given. */
  file?: string;
  /** The environment variable's name and the environment to read it from. */
  envName: string;
  env: NodeJS.ProcessEnv;
  /** Skips the file-mode check (Windows has no Unix modes). */
  platform?: NodeJS.Platform;
}

/** A secret that cannot be had: the message says what to do. */
export class SecretError extends Error {}

export interface Secret {
  value: string;
  /** Where it came from, for the log (never the secret itself). */
  from: string;
  /** Things the operator should fix, printed as warnings. */
  warnings: string[];
}

export function resolveSecret(s: SecretSources): Secret {
  const flag = `--${s.option}`;
  const fileFlag = `--${s.option}-file`;
  if (s.value !== undefined && s.file !== undefined)
    throw new SecretError(`give only one of ${flag} and ${fileFlag}`);
  if (s.file !== undefined) return fromFile(s, fileFlag);
  if (s.value !== undefined) {
    if (!s.value.trim()) throw new SecretError(`${flag} must not be empty`);
    return {
      value: s.value,
      from: flag,
      warnings: [
        `${flag} puts the ${s.what} on the command line, where every local user can read it ` +
          `(ps); use ${fileFlag} or ${s.envName} instead`,
      ],
    };
  }
  const fromEnv = s.env[s.envName];
  if (fromEnv !== undefined) {
    if (!fromEnv.trim()) throw new SecretError(`${s.envName} is set but empty`);
    return { value: fromEnv.trim(), from: s.envName, warnings: [] };
  }
  throw new SecretError(
    `the ${s.what} is required: ${fileFlag} PATH (a file of mode 600) or the ${s.envName} ` +
      `environment variable (${flag} VALUE works too, but shows it to every local user)`,
  );
}

function fromFile(s: SecretSources, fileFlag: string): Secret {
  const path = s.file ?? "";
  let text: string;
  let mode: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new SecretError(`${fileFlag} ${path}: not a file`);
    mode = stat.mode;
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (error instanceof SecretError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code;
    throw new SecretError(`${fileFlag} ${path}: cannot read it (${why ?? String(error)})`);
  }
  // The line break an editor or `echo` leaves at the end, and stray spaces, are no part of it.
  const value = text.trim();
  if (!value) throw new SecretError(`${fileFlag} ${path}: the file is empty`);
  if (/[\r\n]/.test(value))
    throw new SecretError(
      `${fileFlag} ${path}: the file must hold only the ${s.what}, on one line`,
    );
  const warnings: string[] = [];
  if ((s.platform ?? process.platform) !== "win32" && (mode & 0o044) !== 0) {
    const octal = (mode & 0o777).toString(8).padStart(3, "0");
    warnings.push(
      `${fileFlag} ${path} can be read by other users (mode ${octal}); restrict it: chmod 600 ${path}`,
    );
  }
  return { value, from: fileFlag, warnings };
}
