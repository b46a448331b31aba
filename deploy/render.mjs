#!/usr/bin/env node
// Fills in a template of deploy/ (docs/deploy.md). The whole substitution is:
//
//   ${NAME}            the value of NAME; unset or empty is an error (nothing half-rendered)
//   ${each NAME}       the line is written once per space-separated word of NAME, the word
//                      in its place (e.g. one `server host:port;` line per node)
//
// NAME is upper case (A-Z, 0-9, _). Nothing else is touched: nginx's own `$host`, `$1`, ...
// stay as they are. Values come from the `--env` files (NAME=value lines, `#` comments,
// optional quotes, as systemd's EnvironmentFile) and from the environment, which wins.
//
//   node deploy/render.mjs [--env FILE]... TEMPLATE > OUTPUT
//
// Node built-ins only: it runs wherever the server runs.
import { readFileSync, realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

const PLACEHOLDER = /\$\{(each )?([A-Z][A-Z0-9_]*)\}/g;

/** NAME=value lines of an environment file; `#` starts a comment line. */
export function parseEnvFile(text) {
  const values = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) throw new Error(`not NAME=value: ${line}`);
    let value = match[2].trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    values[match[1]] = value;
  }
  return values;
}

/** The template with every placeholder filled in; throws naming every value missing. */
export function render(template, values) {
  const missing = new Set();
  const value = (name) => {
    const v = values[name];
    if (v === undefined || v === "") missing.add(name);
    return v ?? "";
  };
  const lines = template.split("\n").flatMap((line) => {
    const each = [...line.matchAll(PLACEHOLDER)].filter((m) => m[1]);
    if (each.length > 1) throw new Error(`more than one \${each ...} on a line: ${line.trim()}`);
    let words = [null];
    if (each.length) {
      words = value(each[0][2]).split(/\s+/).filter(Boolean);
      // No word at all is a missing value too; the line is still read for the others.
      if (words.length === 0) {
        missing.add(each[0][2]);
        words = [""];
      }
    }
    return words.map((word) =>
      line.replace(PLACEHOLDER, (_all, isEach, name) => (isEach ? word : value(name))),
    );
  });
  if (missing.size > 0)
    throw new Error(
      `no value for ${[...missing].sort().join(", ")} (set it in an --env file or the environment)`,
    );
  return lines.join("\n");
}

function main(argv) {
  const files = [];
  let template;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--env") files.push(argv[++i]);
    else if (template === undefined && !argv[i].startsWith("-")) template = argv[i];
    else throw new Error(`usage: node deploy/render.mjs [--env FILE]... TEMPLATE`);
  }
  if (!template) throw new Error(`usage: node deploy/render.mjs [--env FILE]... TEMPLATE`);
  const values = {};
  for (const file of files) Object.assign(values, parseEnvFile(readFileSync(file, "utf8")));
  for (const [name, v] of Object.entries(process.env)) if (v !== undefined) values[name] = v;
  process.stdout.write(render(readFileSync(template, "utf8"), values));
}

// Run as a program, not imported by a test. Real paths: operators run it through the
// /opt/keyway symlink, and Node names this module by its real path.
const isMain = () => {
  try {
    return realpathSync(process.argv[1] ?? "") === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
};

if (isMain()) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`render: ${error.message}\n`);
    process.exit(1);
  }
}
