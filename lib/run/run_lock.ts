/**
 * The run directory's lock, `run.lock`: one run at a time writes a run
 * directory. The file is created atomically (`createNew`), holds who took it
 * (pid, host when Deno may read it, start time) and stays exclusively
 * `flock`ed by its holder for the whole run. The kernel drops that lock when
 * the holder dies, however it dies, so a second run can tell a live holder
 * (the lock is taken) from a stale file left by a killed one (the lock is
 * free) without any permission to probe processes. A stale file is never
 * removed silently: the message names the command that removes it.
 *
 * The lock lives inside the directory, so `runs/x` and `/abs/path/runs/x`
 * (or a symlink to it) meet at the same file.
 *
 * @module
 */

import { join } from "node:path";
import { RagbenchError } from "../errors.ts";
import { describeFsError } from "../util/fs.ts";

/** Name of the lock file inside a run directory. */
export const LOCK_FILE = "run.lock";

/** What the lock file records about its holder. */
export interface LockHolder {
  pid: number;
  /** Host name, or null when Deno was not allowed to read it (`--allow-sys=hostname`). */
  host: string | null;
  /** ISO time the lock was taken. */
  started_at: string;
}

/** A held lock; `release()` unlocks and removes the file (safe to call twice). */
export interface RunLock {
  readonly path: string;
  release(): Promise<void>;
}

/** Shell-quotes a path for a command shown in a message. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The message for a directory another ragbench holds (`alive`) or for a lock
 * file left by a run that no longer exists.
 */
export function lockedMessage(
  dir: string,
  holder: LockHolder | null,
  options: { alive: boolean; resume: string },
): string {
  const who = holder
    ? `ragbench pid ${holder.pid}${
      holder.host ? ` on ${holder.host}` : ""
    }, started ${holder.started_at}`
    : "a ragbench run whose lock file is unreadable";
  if (options.alive) {
    return `"${dir}" is in use by another run (${who}). Wait for it to finish, or write this run elsewhere with --out.`;
  }
  return [
    `"${dir}" has a stale lock: ${LOCK_FILE} was left by ${who}, which is no longer running.`,
    `If no other ragbench is using the folder, remove the lock and continue the run:`,
    `  rm ${shellQuote(join(dir, LOCK_FILE))}`,
    `  ${options.resume}`,
  ].join("\n");
}

/** Parses a lock file's text; null when it is not one of ours. */
export function parseLockHolder(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text);
    if (
      value && typeof value === "object" && Number.isSafeInteger(value.pid) &&
      typeof value.started_at === "string" &&
      (value.host === null || typeof value.host === "string")
    ) {
      return { pid: value.pid, host: value.host, started_at: value.started_at };
    }
  } catch {
    // Not JSON: reported as unreadable.
  }
  return null;
}

/** The host name when Deno already grants reading it; never prompts. */
function hostName(): string | null {
  try {
    if (Deno.permissions.querySync({ name: "sys", kind: "hostname" }).state !== "granted") {
      return null;
    }
    return Deno.hostname();
  } catch {
    return null;
  }
}

/**
 * Takes the lock of `dir` (which must exist) for this process.
 *
 * @param options.resume the command that continues this run, for the stale-lock message.
 * @throws {RagbenchError} code "usage" when another run holds it or a stale lock is
 *   left; code "io" when the file cannot be created.
 */
export async function acquireRunLock(
  dir: string,
  options: { resume: string; now?: () => Date },
): Promise<RunLock> {
  const path = join(dir, LOCK_FILE);
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { createNew: true, write: true, read: true });
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new RagbenchError("usage", await describeHeldLock(dir, path, options.resume));
    }
    throw new RagbenchError(
      "io",
      `Cannot create the lock "${path}": ${describeFsError(error)}.`,
      { cause: error },
    );
  }
  const holder: LockHolder = {
    pid: Deno.pid,
    host: hostName(),
    started_at: (options.now?.() ?? new Date()).toISOString(),
  };
  try {
    await file.lock(true);
    await file.write(new TextEncoder().encode(JSON.stringify(holder) + "\n"));
  } catch (error) {
    file.close();
    await Deno.remove(path).catch(() => {});
    throw new RagbenchError("io", `Cannot write the lock "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  let released = false;
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      // Remove first: once unlocked, another run could see a free lock on a file about to go.
      await Deno.remove(path).catch(() => {});
      try {
        file.close();
      } catch {
        // Already closed.
      }
    },
  };
}

/** Why the lock at `path` cannot be taken: a live holder, or a stale file. */
async function describeHeldLock(dir: string, path: string, resume: string): Promise<string> {
  const holder = parseLockHolder(await Deno.readTextFile(path).catch(() => ""));
  let alive = true;
  let file: Deno.FsFile | null = null;
  try {
    file = await Deno.open(path, { read: true, write: true });
    // The holder keeps an exclusive flock for its whole life; a free lock means it is gone.
    if (await file.tryLock(true)) {
      alive = false;
      await file.unlock();
    }
  } catch {
    // Cannot probe: assume alive (refusing is the safe side).
  } finally {
    file?.close();
  }
  return lockedMessage(dir, holder, { alive, resume });
}
