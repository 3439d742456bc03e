/**
 * One call of a `type: command` system: the command is started (through the
 * child registry, in a session of its own, its whole process group killed
 * when it is stopped), the request is written to its stdin as one line of
 * JSON and stdin is closed, and its stdout, read under a byte cap, is parsed
 * as one JSON value once it exits with 0. A process that runs past
 * `timeoutMs`, or whose question is cancelled, is killed with what it
 * started; one that writes more than the cap is killed at once. Every
 * failure is a {@link CommandError} whose text quotes the end of its stderr
 * with secrets masked.
 *
 * @module
 */

import { spawnTracked, type TrackedChild } from "../lib/util/child_registry.ts";
import type { Secrets } from "../lib/util/secrets.ts";
import { keepText } from "../tools/sandbox/child_pipes.ts";

/** How to start the command. */
export interface CommandSpec {
  /** The program (a path, or a name looked up in PATH) and its arguments. */
  program: string;
  args: readonly string[];
  cwd: string;
  /** Its whole environment (defaults and the config's `env`, filled in). */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  maxBytes: number;
  secrets: Secrets;
}

/** A failed call; `retryable` for a timeout or an exit that was not 0. */
export class CommandError extends Error {
  constructor(message: string, readonly retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CommandError";
  }
}

/** Characters of stderr kept for a message. */
const STDERR_CHARS = 2000;

/**
 * Runs the command once with `body` on stdin and returns its parsed stdout.
 *
 * @throws {CommandError} when it cannot start, times out, is cancelled,
 *   writes too much, exits with another code than 0 or writes no JSON.
 */
export async function callCommand(
  spec: CommandSpec,
  body: unknown,
  signal: AbortSignal,
): Promise<unknown> {
  signal.throwIfAborted();
  let child: TrackedChild;
  try {
    child = spawnTracked(spec.program, {
      args: spec.args,
      cwd: spec.cwd,
      env: spec.env,
      group: true,
    });
  } catch (error) {
    throw new CommandError(startFailure(error, spec.program), false, { cause: error });
  }
  let why: "timeout" | "cancelled" | "too_big" | null = null;
  const stderr = keepText(child.stderr, { chars: STDERR_CHARS, keep: "tail" });
  const reader = child.stdout.getReader();
  const stop = (reason: "timeout" | "cancelled" | "too_big") => {
    why ??= reason;
    child.kill();
    void reader.cancel().catch(() => {});
  };
  const timer = setTimeout(() => stop("timeout"), spec.timeoutMs);
  const onAbort = () => stop("cancelled");
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    // Written while stdout is read: a command that writes before it reads its stdin (or never
    // reads it, or exits at once) must neither block the call nor fail it here.
    const writer = child.stdin.getWriter();
    const writing = writer.write(new TextEncoder().encode(JSON.stringify(body) + "\n"))
      .then(() => writer.close())
      .catch(() => {});
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const read = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (read.done) break;
      total += read.value.byteLength;
      if (total > spec.maxBytes) {
        stop("too_big");
        break;
      }
      chunks.push(read.value);
    }
    const status = await child.status;
    await writing;
    // The stderr pipe may be held open by a process that left the group: wait a little only.
    await Promise.race([stderr.done, new Promise((r) => setTimeout(r, 200))]);
    const said = tail(stderr.text(), spec.secrets);
    const program = spec.program;
    if (why === "timeout") {
      throw new CommandError(
        `"${program}" did not answer within ${
          spec.timeoutMs / 1000
        } s and was killed (with what it started). Raise timeout_s if it is genuinely slow.`,
        true,
      );
    }
    if (why === "cancelled") throw new CommandError(`"${program}" was cancelled.`, false);
    if (why === "too_big") {
      throw new CommandError(
        `"${program}" wrote over ${megabytes(spec.maxBytes)} to stdout (the limit of one reply) ` +
          "and was killed. Raise max_response_mb if the reply is genuine.",
        false,
      );
    }
    if (!status.success) {
      const how = status.signal
        ? `was killed by ${status.signal}`
        : `exited with code ${status.code}`;
      throw new CommandError(
        `"${program}" ${how}${said ? `; its stderr ends: ${said}` : " (nothing on stderr)"}.`,
        true,
      );
    }
    const bytes = join(chunks, total);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      throw new CommandError(`"${program}" wrote output that is not UTF-8 text.`, false);
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      const start = spec.secrets.redact(text.slice(0, 320)).replace(/\s+/g, " ").trim().slice(
        0,
        80,
      );
      throw new CommandError(
        `"${program}" wrote output that is not one JSON value (${
          (error as Error).message.slice(0, 120)
        }; it starts ${JSON.stringify(start)}). It must write only the reply's JSON to stdout ` +
          "(logs go to stderr).",
        false,
      );
    }
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
    if (child.running) child.kill();
    await reader.cancel().catch(() => {});
    await stderr.cancel();
    await child.exited;
  }
}

function startFailure(error: unknown, program: string): string {
  if (error instanceof Deno.errors.NotFound) {
    return `"${program}" was not found (a relative path is the config folder's; a name is looked up in PATH).`;
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return `ragbench may not run "${program}": run again with the flags \`ragbench permissions CONFIG\` prints.`;
  }
  return `"${program}" could not be started: ${error instanceof Error ? error.message : error}`;
}

function tail(text: string, secrets: Secrets): string {
  const lines = secrets.redact(text).trim().split("\n").slice(-4).join(" | ");
  return lines.length > 400 ? `...${lines.slice(-400)}` : lines;
}

function join(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 1_048_576 * 10) / 10} MB`;
}
