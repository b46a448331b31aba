import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

/**
 * The peer of `npm run bench -- tunnel`: OpenSSH's remote forward (`ssh -R`), the usual way to
 * reach a device behind a firewall. A private `sshd` (Debian's /usr/sbin/sshd) on a free
 * loopback port with its own host key, authorized key and config in a temp dir (nothing of the
 * machine's ssh setup is read or changed), and `ssh -R` from the "device" side with
 * aes128-gcm: the browser connects to the port sshd listens on, sshd carries it over the
 * ssh connection to the ssh client, which connects to the target. Same shape as ours:
 * browser → server process → one outbound connection → device process → target.
 */
export async function startSsh(
  targetPort: number,
  freePort: () => Promise<number>,
): Promise<{ port: number; pids: number[]; stop(): void }> {
  const sshd = "/usr/sbin/sshd";
  if (!existsSync(sshd) || !existsSync("/usr/bin/ssh"))
    throw new Error("the ssh peer needs Debian's openssh-server and openssh-client");
  // sshd running as root wants its privilege-separation directory (Debian's unit makes it at
  // start; it is an empty runtime directory, gone at reboot).
  if (process.getuid?.() === 0 && !existsSync("/run/sshd")) mkdirSync("/run/sshd", { mode: 0o755 });
  const dir = mkdtempSync(path.join(tmpdir(), "kw-bench-ssh-"));
  for (const name of ["host", "user"])
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", path.join(dir, name)]);
  execFileSync("cp", [path.join(dir, "user.pub"), path.join(dir, "authorized_keys")]);
  const sshdPort = await freePort();
  const forwardPort = await freePort();
  const user = userInfo().username;
  writeFileSync(
    path.join(dir, "sshd_config"),
    [
      `Port ${sshdPort}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${path.join(dir, "host")}`,
      `AuthorizedKeysFile ${path.join(dir, "authorized_keys")}`,
      `PidFile ${path.join(dir, "sshd.pid")}`,
      `AllowUsers ${user}`,
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "PermitRootLogin prohibit-password",
      "StrictModes no",
      "AllowTcpForwarding remote",
      "Ciphers aes128-gcm@openssh.com",
      "",
    ].join("\n"),
  );
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const daemon = spawn(sshd, ["-D", "-e", "-f", path.join(dir, "sshd_config")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    children.push(daemon);
    let log = "";
    daemon.stderr?.on("data", (d) => {
      log += d;
    });
    await until(
      () => log.includes("Server listening"),
      () => `sshd did not start: ${log}`,
    );
    const client = spawn(
      "/usr/bin/ssh",
      [
        "-N",
        "-i",
        path.join(dir, "user"),
        "-p",
        String(sshdPort),
        "-c",
        "aes128-gcm@openssh.com",
        "-o",
        "StrictHostKeyChecking=no",
        "-o",
        "UserKnownHostsFile=/dev/null",
        "-o",
        "BatchMode=yes",
        "-o",
        "LogLevel=ERROR",
        "-o",
        "ExitOnForwardFailure=yes",
        "-R",
        `127.0.0.1:${forwardPort}:127.0.0.1:${targetPort}`,
        `${user}@127.0.0.1`,
      ],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    children.push(client);
    await until(
      () => listening(forwardPort),
      () => `ssh -R did not come up: ${log}`,
    );
    // sshd with its per-connection children, and ssh: where the tunnel's CPU goes.
    return { port: forwardPort, pids: [daemon.pid ?? 0, client.pid ?? 0], stop };
  } catch (error) {
    stop();
    throw error;
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

async function until(check: () => boolean | Promise<boolean>, why: () => string) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(why());
}
