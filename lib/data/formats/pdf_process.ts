/**
 * PDF text extraction, seen from ragbench: one subprocess (`pdf_child.ts`)
 * started at the first PDF of a corpus and fed the files one at a time.
 * Each file gets a time budget ({@link PdfReaderOptions.timeoutMs}) and the
 * process a memory limit; a file that passes either, that the reader cannot
 * parse, or that kills the process becomes an error naming why, the process
 * is killed if it still runs, and the next file gets a fresh one. So a
 * hostile PDF (a decompression bomb, a parser loop, garbage) costs at most
 * its budget, and never the run's memory or event loop.
 *
 * Under `deno run` the process is `deno run` on `main.ts __pdf-text` with no
 * permission flags and `--cached-only` (the PDF library is in Deno's cache
 * from ragbench's own start); it needs `--allow-run` of the deno executable
 * (`ragbench permissions` lists it for a corpus folder that holds a PDF). A
 * compiled ragbench starts itself, and the child drops its permissions.
 *
 * @module
 */

import { fileURLToPath } from "../../util/paths.ts";
import { spawnTracked, type TrackedChild } from "../../util/child_registry.ts";
import { RagbenchError } from "../../errors.ts";
import { PDF_MEMORY_MARKER } from "./pdf_child.ts";
import { LineReader, TailText, TOO_LONG, within } from "./pdf_pipes.ts";

/** The hidden command that runs the child (see main.ts). */
export const PDF_CHILD_COMMAND = "__pdf-text";
/** A file's default time budget, in milliseconds. */
export const PDF_TIMEOUT_MS = 60_000;
/** The process's default memory limit (resident memory, and the V8 heap), in MB. */
export const PDF_MEMORY_MB = 1024;
/** How long a fresh process may take to load the PDF library. */
const START_TIMEOUT_MS = 60_000;
/** Longest stdout line taken from the child (a page of at most 1M characters, JSON-escaped). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** How much of the child's stderr is kept (its end), for messages and the memory marker. */
const STDERR_TAIL_CHARS = 4000;

const MAIN = new URL("../../../main.ts", import.meta.url);
const DENO_CONFIG = new URL("../../../deno.json", import.meta.url);
/** Variables Deno itself needs (its cache, TLS settings), passed when readable. */
const PASSED_ENV = ["DENO_DIR", "HOME", "XDG_CACHE_HOME", "DENO_CERT"];

/** A PDF's text, page by page, and the title its metadata gives (empty when none). */
export interface PdfText {
  pages: string[];
  title: string;
}

/** Limits of a {@link PdfReader}. */
export interface PdfReaderOptions {
  /** Each file's time budget, in milliseconds (default {@link PDF_TIMEOUT_MS}). */
  timeoutMs?: number;
  /** The process's memory limit in MB (default {@link PDF_MEMORY_MB}). */
  memoryMb?: number;
  /** Stops waiting (the file then fails with the signal's reason). */
  signal?: AbortSignal;
}

/** Reads PDFs through the child process; {@link close} it when done. */
export class PdfReader {
  readonly #timeoutMs: number;
  readonly #memoryMb: number;
  readonly #signal: AbortSignal | undefined;
  #child: ChildHandle | null = null;
  /** Processes started so far (tests count restarts). */
  started = 0;

  /** The process id of the running reader process, if one runs (tests). */
  get pid(): number | null {
    return this.#child?.child.running ? this.#child.child.pid : null;
  }

  constructor(options: PdfReaderOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? PDF_TIMEOUT_MS;
    this.#memoryMb = options.memoryMb ?? PDF_MEMORY_MB;
    this.#signal = options.signal;
  }

  /**
   * The pages of the PDF `bytes`, or why it could not be read (a clause
   * such as `it took longer than 60 s to read`).
   *
   * @throws {RagbenchError} when the reader process cannot be started
   *   (code "permission" without `--allow-run` of the deno executable);
   *   the signal's reason when it aborts.
   */
  async read(bytes: Uint8Array): Promise<PdfText | { error: string }> {
    this.#signal?.throwIfAborted();
    if (this.#child === null || !this.#child.child.running) {
      await this.#child?.kill();
      this.#child = null;
      this.started++;
      this.#child = await startChild(this.#memoryMb, this.#signal);
    }
    const child = this.#child;
    const outcome = await child.extract(bytes, this.#timeoutMs, this.#signal);
    if ("error" in outcome && outcome.fatal) {
      await child.kill();
      this.#child = null;
    }
    if ("error" in outcome) {
      if (outcome.error === "aborted") this.#signal?.throwIfAborted();
      return { error: outcome.error };
    }
    return outcome;
  }

  /** Ends the process. Never rejects. */
  async close(): Promise<void> {
    await this.#child?.kill();
    this.#child = null;
  }
}

/** The child's command line: `deno run` on main.ts, or the compiled ragbench itself. */
export function pdfChildArgs(memoryMb: number): string[] {
  const host = [PDF_CHILD_COMMAND, String(memoryMb * 1024 * 1024)];
  if (!isDenoExecutable(Deno.execPath())) return host;
  return [
    "run",
    "--no-prompt",
    "--no-lock",
    "--cached-only",
    "--no-remote",
    `--config=${fileURLToPath(DENO_CONFIG)}`,
    `--v8-flags=--max-old-space-size=${memoryMb}`,
    fileURLToPath(MAIN),
    ...host,
  ];
}

type Extracted = PdfText | { error: string; fatal: boolean };

interface ChildHandle {
  child: TrackedChild;
  extract(bytes: Uint8Array, timeoutMs: number, signal?: AbortSignal): Promise<Extracted>;
  kill(): Promise<void>;
}

async function startChild(
  memoryMb: number,
  signal: AbortSignal | undefined,
): Promise<ChildHandle> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  if (!isDenoExecutable(Deno.execPath())) env.DENO_V8_FLAGS = `--max-old-space-size=${memoryMb}`;
  for (const variable of PASSED_ENV) {
    if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") continue;
    const value = Deno.env.get(variable);
    if (value !== undefined) env[variable] = value;
  }
  let child: TrackedChild;
  try {
    child = spawnTracked(Deno.execPath(), { args: pdfChildArgs(memoryMb), env });
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new RagbenchError(
        "permission",
        `Cannot read the corpus's PDF files: reading them starts a process, which needs ` +
          `--allow-run=${Deno.execPath()} (ragbench permissions CONFIG prints every flag a run needs).`,
        { cause: error },
      );
    }
    throw new RagbenchError(
      "data",
      `Cannot start the PDF reader: ${(error as Error).message}.`,
      { cause: error },
    );
  }
  const lines = new LineReader(child.stdout, MAX_LINE_BYTES);
  const stderr = new TailText(child.stderr, STDERR_TAIL_CHARS);
  const writer = child.stdin.getWriter();
  const kill = async () => {
    child.kill();
    await writer.close().catch(() => {});
    await lines.cancel();
    await stderr.cancel();
    await child.exited;
  };
  const died = async (): Promise<string> => {
    await within(child.exited, 2000);
    await stderr.settled(500);
    if (stderr.text.includes(PDF_MEMORY_MARKER)) {
      return `it needed more than ${memoryMb} MB of memory to read`;
    }
    const status = await within(child.status, 0);
    const tail = lastLine(stderr.text);
    return `its PDF reader stopped${status?.signal ? ` (${status.signal})` : ""}${
      tail ? `: ${tail}` : ""
    }`;
  };
  const ready = await nextMessage(lines, START_TIMEOUT_MS, signal);
  if (ready.kind !== "message" || ready.message.type !== "ready") {
    const why = ready.kind === "timeout"
      ? `it did not start within ${START_TIMEOUT_MS / 1000} s`
      : ready.kind === "aborted"
      ? ""
      : await died();
    await kill();
    signal?.throwIfAborted();
    throw new RagbenchError("data", `Cannot start the PDF reader: ${why}.`);
  }
  const extract = async (
    bytes: Uint8Array,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<Extracted> => {
    try {
      await writer.write(new TextEncoder().encode(`${JSON.stringify({ size: bytes.length })}\n`));
      await writer.write(bytes);
    } catch {
      return { error: await died(), fatal: true };
    }
    const deadline = Date.now() + timeoutMs;
    const pages: string[] = [];
    while (true) {
      const next = await nextMessage(lines, deadline - Date.now(), signal);
      if (next.kind === "timeout") {
        return { error: `it took longer than ${formatSeconds(timeoutMs)} to read`, fatal: true };
      }
      if (next.kind === "aborted") return { error: "aborted", fatal: true };
      if (next.kind === "end") return { error: await died(), fatal: true };
      if (next.kind === "bad") return { error: `its PDF reader ${next.why}`, fatal: true };
      const m = next.message;
      if (m.type === "page" && typeof m.text === "string") pages.push(m.text);
      else if (m.type === "done") {
        return { pages, title: typeof m.title === "string" ? m.title : "" };
      } else if (m.type === "error") {
        return { error: `it is not a readable PDF (${String(m.message)})`, fatal: false };
      } else return { error: "its PDF reader sent an unexpected message", fatal: true };
    }
  };
  return { child, extract, kill };
}

type Next =
  | { kind: "message"; message: Record<string, unknown> }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "end" }
  | { kind: "bad"; why: string };

async function nextMessage(lines: LineReader, ms: number, signal?: AbortSignal): Promise<Next> {
  if (signal?.aborted) return { kind: "aborted" };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<Next>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), Math.max(0, ms));
    onAbort = () => resolve({ kind: "aborted" });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const line = await Promise.race([lines.next(), stop]);
    if (line === null) return { kind: "end" };
    if (typeof line !== "string") return line;
    if (line === TOO_LONG) return { kind: "bad", why: "sent a line over its size limit" };
    try {
      const message = JSON.parse(line);
      if (message === null || typeof message !== "object" || Array.isArray(message)) {
        return { kind: "bad", why: "sent a line that is not a message" };
      }
      return { kind: "message", message };
    } catch {
      return { kind: "bad", why: "sent a line that is not JSON" };
    }
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

function lastLine(text: string): string {
  const lines = text.split("\n").map((l) => l.trim()).filter((l) =>
    l !== "" && !l.includes(PDF_MEMORY_MARKER)
  );
  const last = lines[lines.length - 1] ?? "";
  return last.length > 300 ? `${last.slice(0, 300)}…` : last;
}

function formatSeconds(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** True when `path` is the deno CLI (not a `deno compile`d binary). */
function isDenoExecutable(path: string): boolean {
  const name = path.split(/[\\/]/).pop() ?? "";
  return /^deno(\.exe)?$/i.test(name);
}
