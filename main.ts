/**
 * The `ragbench` command line: parses argv, dispatches to a command in
 * `lib/cli/`, and is the only place that catches errors at the top and
 * exits. Exit codes: 0 success; 1 the run finished but something failed, the
 * results could not be written, or an internal error; 2 usage or config
 * error; 130 cancelled with Ctrl-C (the first stops gracefully, the second
 * quits at once); 143 SIGTERM and 129 SIGHUP, which quit at once like a
 * second Ctrl-C.
 *
 * @module
 */

// deno-lint-ignore-file no-console
import { commandHelp, type CommandSpec, parseArgs, type ParsedArgs } from "./lib/cli/args.ts";
import { fileURLToPath } from "./lib/util/paths.ts";
import type { CliIO } from "./lib/cli/io.ts";
import { VERSION } from "./lib/version.ts";
import { UsageError } from "./lib/errors.ts";
import { createQuitHooks, QUIT_EXIT_CODES, watchParent } from "./lib/cli/quit.ts";
import { closestMatch } from "./lib/util/did_you_mean.ts";
import {
  DEFAULT_INVOCATION,
  type Invocation,
  readInvocation,
  shownPath,
} from "./lib/cli/invocation.ts";
import { failureText } from "./lib/cli/failure_text.ts";

/** A command: its declaration and a lazy loader of its implementation (keeps --help fast). */
interface Command {
  spec: () => Promise<CommandSpec>;
  run: (args: ParsedArgs, io: CliIO) => Promise<number>;
}

const COMMANDS = new Map<string, Command>([
  ["run", {
    spec: async () => (await import("./lib/cli/run_command.ts")).RUN_SPEC,
    run: async (a, io) => (await import("./lib/cli/run_command.ts")).runCommand(a, io),
  }],
  ["permissions", {
    spec: async () => (await import("./lib/cli/permissions_command.ts")).PERMISSIONS_SPEC,
    run: async (a, io) =>
      (await import("./lib/cli/permissions_command.ts")).permissionsCommand(a, io),
  }],
  ["tools", {
    spec: async () => (await import("./lib/cli/tools_command.ts")).TOOLS_SPEC,
    run: async (a, io) => (await import("./lib/cli/tools_command.ts")).toolsCommand(a, io),
  }],
  ["tool", {
    spec: async () => (await import("./lib/cli/tools_command.ts")).TOOL_SPEC,
    run: async (a, io) => (await import("./lib/cli/tools_command.ts")).toolCommand(a, io),
  }],
  ["report", {
    spec: async () => (await import("./lib/cli/report_command.ts")).REPORT_SPEC,
    run: async (a, io) => (await import("./lib/cli/report_command.ts")).reportCommand(a, io),
  }],
  ["compare", {
    spec: async () => (await import("./lib/cli/compare_command.ts")).COMPARE_SPEC,
    run: async (a, io) => (await import("./lib/cli/compare_command.ts")).compareCommand(a, io),
  }],
  ["merge", {
    spec: async () => (await import("./lib/cli/merge_command.ts")).MERGE_SPEC,
    run: async (a, io) => (await import("./lib/cli/merge_command.ts")).mergeCommand(a, io),
  }],
  ["validate", {
    spec: async () => (await import("./lib/cli/validate_command.ts")).VALIDATE_SPEC,
    run: async (a, io) => (await import("./lib/cli/validate_command.ts")).validateCommand(a, io),
  }],
  ["init", {
    spec: async () => (await import("./lib/cli/init_command.ts")).INIT_SPEC,
    run: async (a, io) => (await import("./lib/cli/init_command.ts")).initCommand(a, io),
  }],
]);

/** The commands, by name (the launcher, ragbench.ts, gives each the permissions it needs). */
export const COMMAND_NAMES: readonly string[] = [...COMMANDS.keys()];

/** A command's declaration, or undefined for a name that is not a command. */
export async function commandSpec(name: string): Promise<CommandSpec | undefined> {
  return await COMMANDS.get(name)?.spec();
}

/** The command a custom tool's subprocess runs (see tools/sandbox/subprocess_host.ts). */
const HIDDEN_TOOL_HOST = "__tool-host";
/** The command a custom system's subprocess runs (see systems/custom/system_host.ts). */
const HIDDEN_SYSTEM_HOST = "__system-host";
/** The command the PDF reader's subprocess runs (see lib/data/formats/pdf_process.ts). */
const HIDDEN_PDF_TEXT = "__pdf-text";

const SUMMARIES: ReadonlyArray<[string, string]> = [
  ["init [DOCS]", "Write a starter benchmark for a folder of your documents."],
  ["run CONFIG", "Run every system on every question; write a run directory."],
  ["validate CONFIG", "Check a config and the files it names; start nothing."],
  ["report RUN_DIR", "Re-render a run's summaries and report.html from its results."],
  ["compare RUN_A RUN_B", "Per-system changes between two runs; a CI regression gate."],
  ["merge OUT SHARD_DIR...", "Join the folders of run --shard I/N into the whole run's folder."],
  ["permissions CONFIG", "Print the minimal Deno permission flags a run of CONFIG needs."],
  ["tools", "List the built-in tools, their parameters and options."],
  ["tool NAME --args JSON", "Make one tool call in the sandbox and print its result."],
];

function mainHelp(invocation: Invocation): string {
  const width = Math.max(...SUMMARIES.map(([c]) => c.length));
  return [
    `ragbench ${VERSION} — benchmark RAG systems and tool-using agents on your questions`,
    "",
    `Usage: ${invocation.program} <command> [options]`,
    "",
    "Commands:",
    ...SUMMARIES.map(([c, s]) => `  ${c.padEnd(width)}  ${s}`),
    "",
    "Options: --help (also after a command), --version, --debug (stack traces).",
    "",
    `Start with: ${startCommand(invocation)}`,
  ].join("\n");
}

/**
 * The first command to try, as it works from here: the bundled config named
 * from the current folder. Under `deno run` with explicit flags the launcher
 * (`deno task ragbench`) is the short way; `deno task` runs in the folder of
 * deno.json, where the config path starts.
 */
function startCommand(invocation: Invocation): string {
  const cwd = Deno.cwd();
  const config = new URL("./configs/all.yaml", import.meta.url);
  if (invocation.kind === "launcher") {
    return `${invocation.program} run ${shownPath(fileURLToPath(config), cwd)} --mock`;
  }
  if (invocation.kind === "compiled") return `${invocation.program} run configs/all.yaml --mock`;
  const denoJson = fileURLToPath(new URL("./deno.json", import.meta.url));
  const here = shownPath(denoJson, cwd) === "deno.json";
  return `deno task ${
    here ? "" : `--config ${shownPath(denoJson, cwd)} `
  }ragbench run configs/all.yaml --mock`;
}

/** Runs the CLI with `argv`; returns the exit code. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  const invocation = io.invocation ?? DEFAULT_INVOCATION;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(mainHelp(invocation));
    return name === undefined ? 2 : 0;
  }
  if (name === "--version" || name === "-V") {
    io.out(VERSION);
    return 0;
  }
  if (name === HIDDEN_TOOL_HOST) {
    await (await import("./tools/sandbox/custom_tool_child.ts")).serveCustomTool(rest);
    return 0;
  }
  if (name === HIDDEN_SYSTEM_HOST) {
    await (await import("./systems/custom/system_child.ts")).serveCustomSystem(rest);
    return 0;
  }
  if (name === HIDDEN_PDF_TEXT) {
    await (await import("./lib/data/formats/pdf_child.ts")).servePdfText(rest);
    return 0;
  }
  const command = COMMANDS.get(name);
  if (!command) {
    const near = closestMatch(name, COMMANDS.keys());
    throw new UsageError(
      `Unknown command "${name}"${
        near ? ` — did you mean "${near}"?` : "."
      } See ${invocation.program} --help.`,
    );
  }
  const spec = await command.spec();
  const args = parseArgs(spec, rest, invocation.program);
  if (args.options.has("help")) {
    io.out(commandHelp(spec, invocation.program));
    return 0;
  }
  return await command.run(args, io);
}

if (import.meta.main) {
  const { invocation, argv } = readInvocation(Deno.args, {
    mainModule: fileURLToPath(import.meta.url),
    standalone: Deno.build.standalone,
    execPath: Deno.execPath(),
    cwd: Deno.cwd(),
  });
  const controller = new AbortController();
  const quitHooks = createQuitHooks();
  let interrupted = false;
  let quitting = false;
  const quit = async (signal: string, why?: string) => {
    if (quitting) return;
    quitting = true;
    console.error(`\n${why ?? (signal === "SIGINT" ? "Ctrl-C again" : signal)}: quitting at once.`);
    await quitHooks.run(signal);
    Deno.exit(QUIT_EXIT_CODES.get(signal) ?? 1);
  };
  const onInterrupt = () => {
    if (interrupted) return void quit("SIGINT");
    interrupted = true;
    console.error("\nStopping after the questions in progress (Ctrl-C again to quit at once)…");
    controller.abort(new DOMException("cancelled by the user", "AbortError"));
  };
  // CI cancellation, timeout(1) and docker stop send SIGTERM; a closed terminal sends SIGHUP.
  const hardSignals: Deno.Signal[] = Deno.build.os === "windows" ? [] : ["SIGTERM", "SIGHUP"];
  const onHard = hardSignals.map((s) => [s, () => void quit(s)] as const);
  Deno.addSignalListener("SIGINT", onInterrupt);
  for (const [s, listener] of onHard) Deno.addSignalListener(s, listener);
  // Started by the launcher in a session of its own: if the launcher is killed (SIGKILL, which
  // it cannot forward), nothing else would stop this process. Quit as a closed terminal does.
  const stopWatch = invocation.kind === "launcher"
    ? watchParent(() => void quit("SIGHUP", "the launcher is gone"))
    : () => {};
  const encoder = new TextEncoder();
  const io: CliIO = {
    out: (text) => console.log(text),
    progress: (text) => console.error(text),
    ...(Deno.stderr.isTerminal()
      ? { redraw: (text: string) => Deno.stderr.writeSync(encoder.encode(`\r\x1b[K${text}`)) }
      : {}),
    signal: controller.signal,
    onQuit: quitHooks.onQuit,
    invocation,
  };
  const debug = argv.includes("--debug");
  let code: number;
  try {
    code = await main(argv, io);
  } catch (error) {
    // A hard quit closes what the command uses; what fails because of that is not news.
    if (quitting) await new Promise(() => {});
    const failure = failureText(error, debug);
    console.error(failure.text);
    code = failure.code;
  }
  stopWatch();
  Deno.removeSignalListener("SIGINT", onInterrupt);
  for (const [s, listener] of onHard) Deno.removeSignalListener(s, listener);
  if (quitting) await new Promise(() => {}); // quit() exits with its own code.
  Deno.exit(interrupted && code === 0 ? 130 : code);
}
