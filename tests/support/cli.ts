/**
 * Runs the ragbench CLI for tests: in-process through `main()` (fast, with
 * captured output), or as a real `deno run` subprocess with explicit
 * permission flags (for exit codes, signals and permissions).
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import type { CliIO } from "../../lib/cli/io.ts";
import { exitCodeFor, RagbenchError } from "../../lib/errors.ts";
import { main } from "../../main.ts";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What a CLI call printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `main(argv)` in this process, mapping user-facing errors to exit codes like main.ts does. */
export async function runCli(argv: string[], signal?: AbortSignal): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    out: (t) => out.push(t),
    progress: (t) => err.push(t),
    signal: signal ?? new AbortController().signal,
  };
  let code: number;
  try {
    code = await main(argv, io);
  } catch (error) {
    if (!(error instanceof RagbenchError)) throw error;
    err.push(error.message);
    code = exitCodeFor(error);
  }
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** The flags `deno run` needs beside permissions. */
export const UNSTABLE_FLAGS = ["--unstable-worker-options", "--unstable-raw-imports"];

/** Starts `deno run <flags> main.ts <argv>` in the repository root. */
export function spawnCli(
  permissions: string[],
  argv: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...UNSTABLE_FLAGS, ...permissions, `${ROOT}main.ts`, ...argv],
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...(options.env ?? {}) },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Runs the CLI as a subprocess to the end. */
export async function execCli(
  permissions: string[],
  argv: string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<CliResult> {
  const output = await spawnCli(permissions, argv, options).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** Longest a printed command may run in a test before it is killed. */
const PRINTED_COMMAND_MS = 120_000;

/**
 * Runs a command line ragbench printed, exactly as printed, through `sh -c`
 * (from `cwd`, default the repository root): the proof that a hint works.
 */
export async function runPrinted(
  command: string,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const output = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...(options.env ?? {}) },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(PRINTED_COMMAND_MS),
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** The line after `label` in `text` (a printed command is indented on the line after its label). */
export function lineAfter(text: string, label: string): string {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.includes(label));
  if (at === -1 || at + 1 >= lines.length) throw new Error(`no line after "${label}" in:\n${text}`);
  return lines[at + 1].trim();
}

/** How long a `deno task ragbench` call may take in a test before it is killed. */
const TASK_MS = 120_000;

/**
 * Runs `deno task ragbench <argv>` (the entry point people use) to the end,
 * from the repository root like any `deno task`.
 */
export async function taskCli(
  argv: string[],
  options: { env?: Record<string, string> } = {},
): Promise<CliResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "ragbench", ...argv],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...(options.env ?? {}) },
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(TASK_MS),
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/**
 * The flags `deno task ragbench` starts the launcher (ragbench.ts) with,
 * from deno.json, with the Deno executable in place of its `$(deno eval ...)`.
 */
export function launcherFlags(): string[] {
  const task = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks.ragbench as string;
  const flags = task.replace(/^deno run /, "").replace(/ ragbench\.ts __task$/, "")
    .replace("$(deno eval 'console.log(Deno.execPath())')", Deno.execPath());
  return flags.split(" ");
}

/** Starts the launcher (`ragbench.ts`, as the installed `ragbench` command runs it). */
export function spawnLauncher(
  argv: string[],
  options: { env?: Record<string, string>; cwd?: string; detached?: boolean } = {},
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", ...launcherFlags(), `${ROOT}ragbench.ts`, ...argv],
    cwd: options.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...(options.env ?? {}) },
    stdout: "piped",
    stderr: "piped",
    detached: options.detached ?? false,
  }).spawn();
}

/**
 * `stderr` without the notes a load that took over a second prints
 * (`lib/util/load_progress.ts`): on a loaded machine they may come before
 * anything else.
 */
export function withoutLoadNotes(stderr: string): string {
  return stderr.replace(/^(corpus|questions): .* (in |\()[0-9.]+ s\)?\n/gm, "");
}
