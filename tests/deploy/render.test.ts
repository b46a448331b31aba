// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the templates' own ${NAME} placeholders
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseEnvFile, render } from "../../deploy/render.mjs";
import { ROOT } from "./units.ts";

/** deploy/render.mjs, the whole substitution of deploy/'s templates (docs/deploy.md). */
const dir = mkdtempSync(path.join(tmpdir(), "kw-render-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [path.join(ROOT, "deploy/render.mjs"), ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
  });
}

describe("deploy/render.mjs", () => {
  it("fills ${NAME}, repeats a ${each NAME} line per word, and leaves nginx's $variables", () => {
    const template = [
      "upstream u {",
      "    server ${each NODES} max_fails=1;",
      "}",
      "server_name ${HOST} *.visit.${HOST};",
      "return 301 https://$host:${PORT}$request_uri;",
      "set $x ${lower};",
    ].join("\n");
    expect(
      render(template, { NODES: " 10.0.0.5:8080  10.0.0.6:8080 ", HOST: "k.example", PORT: "443" }),
    ).toBe(
      [
        "upstream u {",
        "    server 10.0.0.5:8080 max_fails=1;",
        "    server 10.0.0.6:8080 max_fails=1;",
        "}",
        "server_name k.example *.visit.k.example;",
        "return 301 https://$host:443$request_uri;",
        "set $x ${lower};",
      ].join("\n"),
    );
  });

  it("refuses to write half a file: every missing or empty value is named", () => {
    expect(() => render("a ${ONE} b ${TWO} ${each THREE}", { TWO: "" })).toThrow(
      "no value for ONE, THREE, TWO",
    );
    expect(() => render("${each A} ${each B}", { A: "x", B: "y" })).toThrow(/more than one/);
    const failed = cli([path.join(ROOT, "deploy/nginx/keyway.conf")]);
    expect(failed.status).toBe(1);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toMatch(/^render: no value for KEYWAY_HOST, KEYWAY_HTTPS_PORT, /);
  });

  it("reads values from --env files as systemd's EnvironmentFile does; the environment wins", () => {
    expect(
      parseEnvFile("# comment\nA=1\n\nB = \"two words\"\nC='#not a comment'\nD=x#y\n"),
    ).toEqual({ A: "1", B: "two words", C: "#not a comment", D: "x#y" });
    writeFileSync(path.join(dir, "t.env"), "GREETING=hello\nNAME=file\n");
    writeFileSync(path.join(dir, "t.conf"), "${GREETING} ${NAME}\n");
    const out = cli(["--env", path.join(dir, "t.env"), path.join(dir, "t.conf")], {
      NAME: "environment",
    });
    expect(out.stderr).toBe("");
    expect(out.stdout).toBe("hello environment\n");
  });

  it("runs through the /opt/keyway symlink of a release folder, as the doc installs it", () => {
    // Node names the module by its real path and argv[1] by the link: once, nothing ran.
    symlinkSync(ROOT, path.join(dir, "keyway"));
    writeFileSync(path.join(dir, "link.conf"), "${NAME}\n");
    const out = spawnSync(
      process.execPath,
      [path.join(dir, "keyway/deploy/render.mjs"), path.join(dir, "link.conf")],
      { encoding: "utf8", env: { PATH: process.env.PATH ?? "", NAME: "linked" } },
    );
    expect(out.stderr).toBe("");
    expect(out.stdout).toBe("linked\n");
  });

  it("renders each template of deploy/ from its example values, leaving no placeholder", () => {
    for (const [template, example] of [
      ["deploy/nginx/keyway.conf", "deploy/nginx.env.example"],
      ["deploy/mosquitto/keyway.conf", "deploy/mosquitto.env.example"],
    ]) {
      const out = cli(["--env", path.join(ROOT, example), path.join(ROOT, template)]);
      expect(out.stderr).toBe("");
      expect(out.stdout).not.toMatch(/\$\{/);
      expect(out.stdout.length).toBeGreaterThan(readFileSync(path.join(ROOT, template)).length / 2);
    }
    // The example's two nodes are the servers of each upstream group: plain requests, sockets.
    const nginx = cli([
      "--env",
      path.join(ROOT, "deploy/nginx.env.example"),
      path.join(ROOT, "deploy/nginx/keyway.conf"),
    ]).stdout;
    for (const group of ["keyway_nodes", "keyway_streams"]) {
      const block = new RegExp(`upstream ${group} \\{([^}]*)\\}`).exec(nginx)?.[1] ?? "";
      expect(block.match(/^\s*server 127\.0\.0\.1:808[12] /gm)).toHaveLength(2);
    }
  });
});
