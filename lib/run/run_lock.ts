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

import { join } from "../util/paths.ts";
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
  options: { alive: boolean; starting?: boolean; resume: string },
): string {
  const rm = `rm ${shellQuote(join(dir, LOCK_FILE))}`;
  if (options.starting) {
    return `"${dir}" is in use by a run that is starting (its ${LOCK_FILE} is still empty). ` +
      `If no ragbench is running on it, remove the lock: ${rm}`;
  }
  const who = holder
    ? `ragbench pid ${holder.pid}${holder.host ? ` on ${printable(holder.host)}` : ""}, started ${
      printable(holder.started_at)
    }`
    : "a ragbench run whose lock file is unreadable";
  if (options.alive) {
    return `"${dir}" is in use by another run (${who}). Wait for it to finish, or write this run elsewhere with --out.`;
  }
  return [
    `"${dir}" has a stale lock: ${LOCK_FILE} was left by ${who}, which is no longer running.`,
    `If no other ragbench is using the folder, remove the lock and continue the run:`,
    `  ${rm}`,
    `  ${options.resume}`,
  ].join("\n");
}

/** Longest field of a lock file quoted in a message. */
const FIELD_LIMIT = 64;

/** A lock file's field as it may be printed: no control characters, cut to a few words. */
function printable(text: string): string {
  // deno-lint-ignore no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");
  return clean.length > FIELD_LIMIT ? `${clean.slice(0, FIELD_LIMIT)}…` : clean;
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
    const bytes = new TextEncoder().encode(JSON.stringify(holder) + "\n");
    let offset = 0;
    while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
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

/** Longest lock file read when probing (ours are under 200 bytes). */
const LOCK_READ_LIMIT = 4096;

/** The first bytes of the lock file as text; "" when empty. */
async function readLockText(file: Deno.FsFile): Promise<string> {
  const buffer = new Uint8Array(LOCK_READ_LIMIT);
  let length = 0;
  while (length < buffer.length) {
    const n = await file.read(buffer.subarray(length));
    if (n === null) break;
    length += n;
  }
  return new TextDecoder().decode(buffer.subarray(0, length));
}

/** Why the lock at `path` cannot be taken: a live holder, one starting, or a stale file. */
async function describeHeldLock(dir: string, path: string, resume: string): Promise<string> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true, write: true });
  } catch {
    // Gone or unreadable: the holder may be releasing it; refusing is the safe side.
    return lockedMessage(dir, null, { alive: true, resume });
  }
  try {
    const text = await readLockText(file).catch(() => "");
    if (text === "") {
      // The holder creates the file, then locks and writes it: an empty file may be a run starting.
      return lockedMessage(dir, null, { alive: true, starting: true, resume });
    }
    // The holder keeps an exclusive flock for its whole life; a free lock means it is gone.
    let alive = true;
    try {
      if (await file.tryLock(true)) {
        alive = false;
        await file.unlock();
      }
    } catch {
      // Cannot probe: assume alive.
    }
    return lockedMessage(dir, parseLockHolder(text), { alive, resume });
  } finally {
    file.close();
  }
}
