/**
 * A real PostgreSQL server for tests, from Debian's `postgresql` package
 * (`/usr/lib/postgresql/<version>/bin`, which `.ci/run` installs): a fresh
 * cluster in a temporary folder (initdb, no fsync), listening on 127.0.0.1
 * (a free port) and on a Unix socket in that folder, nowhere else. Local
 * (socket) connections are trusted; TCP ones need the password of user
 * `ragbench`. PostgreSQL refuses to run as root, so under root the server
 * runs as the package's `postgres` user (`setpriv`, which execs: the
 * server is this process's own child). `stop()` asks for a fast shutdown
 * and waits for the server and every process it started to end (SIGKILL
 * after the patience limit), then removes the folder.
 *
 * @module
 */

import { join } from "node:path";
import { runningDescendants } from "./processes.ts";
import { PATIENCE_MS, waitUntil } from "./wait.ts";

/** The password of user `ragbench` over TCP. */
export const PG_TEST_PASSWORD = "pw-for-ragbench-tests-7f3a";

/** A running server. */
export interface PgTestServer {
  port: number;
  /** The folder holding the socket file. */
  socketDir: string;
  /** The socket file (`<socketDir>/.s.PGSQL.<port>`). */
  socket: string;
  pid: number;
  /** `postgresql://ragbench:PASSWORD@127.0.0.1:PORT/postgres`. */
  tcpUrl: string;
  /** `postgresql://ragbench@/postgres?host=SOCKETDIR&port=PORT`. */
  socketUrl: string;
  /** Runs SQL through `psql` on the socket (for setting up fixtures). */
  psql(sql: string): Promise<string>;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The folder of the newest installed server's programs, or null when there is none. */
export function findPostgresBin(): string | null {
  let best: { version: number; dir: string } | null = null;
  try {
    for (const entry of Deno.readDirSync("/usr/lib/postgresql")) {
      const version = Number(entry.name);
      const dir = `/usr/lib/postgresql/${entry.name}/bin`;
      if (!Number.isFinite(version)) continue;
      try {
        Deno.statSync(join(dir, "initdb"));
        Deno.statSync(join(dir, "postgres"));
      } catch {
        continue;
      }
      if (best === null || version > best.version) best = { version, dir };
    }
  } catch {
    return null;
  }
  return best?.dir ?? null;
}

/**
 * Starts a server.
 *
 * @throws {Error} when there is no server to start, or it does not come up.
 */
export async function startPostgres(): Promise<PgTestServer> {
  const bin = findPostgresBin();
  if (bin === null) throw new Error("PostgreSQL is not installed (apt-get install postgresql)");
  const dir = await Deno.makeTempDir({ prefix: "ragbench_pg_" });
  await Deno.chmod(dir, 0o755);
  const owner = await myUid() === 0 ? await postgresUser() : null;
  const asOwner = (program: string, args: string[]) =>
    owner === null ? { program, args } : {
      program: "setpriv",
      args: [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--clear-groups", program, ...args],
    };
  const data = join(dir, "data");
  const socketDir = join(dir, "s");
  await Deno.mkdir(socketDir);
  const pwfile = join(dir, "pw");
  await Deno.writeTextFile(pwfile, PG_TEST_PASSWORD);
  if (owner !== null) {
    for (const path of [dir, socketDir, pwfile]) await Deno.chown(path, owner.uid, owner.gid);
  }
  const init = asOwner(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "ragbench",
    `--pwfile=${pwfile}`,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const made = await new Deno.Command(init.program, {
    args: init.args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!made.success) {
    await Deno.remove(dir, { recursive: true });
    throw new Error(`initdb failed: ${new TextDecoder().decode(made.stderr)}`);
  }
  const port = freePort();
  const run = asOwner(join(bin, "postgres"), [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    socketDir,
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "fsync=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "max_connections=30",
    "-c",
    "shared_buffers=16MB",
  ]);
  const child = new Deno.Command(run.program, {
    args: run.args,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const drained = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) log = (log + decoder.decode(chunk)).slice(-20_000);
  })();
  const status = child.status;
  let exited = false;
  status.then(() => exited = true);
  const stop = async () => {
    if (!exited) {
      try {
        child.kill("SIGINT");
      } catch {
        // already gone
      }
      const gone = await waitUntil(() => exited, PATIENCE_MS);
      if (!gone) {
        for (const p of runningDescendants(child.pid)) {
          try {
            Deno.kill(p.pid, "SIGKILL");
          } catch {
            // gone
          }
        }
        child.kill("SIGKILL");
      }
    }
    await status;
    await drained.catch(() => {});
    // Backends end with the postmaster; wait for any still exiting.
    await waitUntil(() => runningDescendants(child.pid).length === 0, PATIENCE_MS);
    await Deno.remove(dir, { recursive: true });
  };
  const ready = await waitUntil(async () => {
    if (exited) return true;
    try {
      const pid = await Deno.readTextFile(join(data, "postmaster.pid"));
      return pid.split("\n")[7]?.trim() === "ready";
    } catch {
      return false;
    }
  });
  if (!ready || exited) {
    await stop();
    throw new Error(`PostgreSQL did not start:\n${log}`);
  }
  const socket = join(socketDir, `.s.PGSQL.${port}`);
  return {
    port,
    socketDir,
    socket,
    pid: child.pid,
    tcpUrl: `postgresql://ragbench:${PG_TEST_PASSWORD}@127.0.0.1:${port}/postgres`,
    socketUrl: `postgresql://ragbench@/postgres?host=${socketDir}&port=${port}`,
    async psql(sql: string) {
      const out = await new Deno.Command(join(bin, "psql"), {
        args: ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", socketDir, "-p", String(port)],
        env: { PGUSER: "ragbench", PGDATABASE: "postgres" },
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const writer = out.stdin.getWriter();
      await writer.write(new TextEncoder().encode(sql));
      await writer.close();
      const result = await out.output();
      if (!result.success) throw new Error(`psql: ${new TextDecoder().decode(result.stderr)}`);
      return new TextDecoder().decode(result.stdout);
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** This process's user id (`id -u`: Deno.uid needs --allow-sys, which tests do not have). */
async function myUid(): Promise<number> {
  const out = await new Deno.Command("id", { args: ["-u"], stdout: "piped" }).output();
  return Number(new TextDecoder().decode(out.stdout).trim());
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => {
    const out = await new Deno.Command("id", { args: [flag, "postgres"], stdout: "piped" })
      .output();
    if (!out.success) throw new Error("running as root needs the postgres user of the package");
    return Number(new TextDecoder().decode(out.stdout).trim());
  };
  return { uid: await id("-u"), gid: await id("-g") };
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
