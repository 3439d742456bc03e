/**
 * The `ragbench` command people run: `deno task ragbench <command> ...`, or
 * the command `deno install -g` makes from this file (see the README). It
 * computes the least permissions the command line needs and runs main.ts in
 * a child process with exactly those flags (lib/cli/launcher.ts); it needs
 * only read access (the config, to compute them), the variables that locate
 * the cache folder, and the right to run the Deno executable.
 *
 * Its optional first argument `__task` says it runs as `deno task ragbench`
 * (so printed commands say that); without it, printed commands say `ragbench`.
 * A binary built with `deno compile` and `deno run main.ts` with explicit
 * flags do not go through here.
 *
 * @module
 */

// deno-lint-ignore-file no-console
import { planLaunch, shownCommand, superviseChild } from "./lib/cli/launcher.ts";
import { failureText } from "./lib/cli/failure_text.ts";
import { RagbenchError } from "./lib/errors.ts";
import { fileURLToPath } from "./lib/util/paths.ts";
import { commandSpec } from "./main.ts";

/** The hidden first argument of `deno task ragbench` (deno.json). */
const TASK_MARKER = "__task";

/** Runs the launcher with `argv`; returns the exit code. */
export async function launch(argv: readonly string[]): Promise<number> {
  const task = argv[0] === TASK_MARKER;
  const words = task ? argv.slice(1) : argv;
  const program = task ? "deno task ragbench" : "ragbench";
  const deno = Deno.execPath();
  let plan;
  try {
    if (Deno.permissions.querySync({ name: "run", command: deno }).state !== "granted") {
      throw new RagbenchError(
        "permission",
        `ragbench cannot start Deno (${deno}): it was started without --allow-run=${deno}. ` +
          "If it was installed with deno install, Deno has moved since; install it again " +
          "(see the README, Install).",
      );
    }
    plan = await planLaunch(words, {
      program,
      main: fileURLToPath(new URL("./main.ts", import.meta.url)),
      specOf: commandSpec,
      cwd: Deno.cwd(),
    });
  } catch (error) {
    const failure = failureText(error, words.includes("--debug"));
    console.error(failure.text);
    return failure.code;
  }
  if (plan.show) console.error(`ragbench: running ${shownCommand(deno, plan)}`);
  const child = new Deno.Command(deno, {
    args: plan.args,
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
    // A session of its own: the terminal's Ctrl-C reaches the launcher alone, which passes it on
    // once (see lib/cli/launcher.ts). Windows has no sessions.
    detached: Deno.build.os !== "windows",
  }).spawn();
  return await superviseChild(child);
}

if (import.meta.main) {
  Deno.exit(await launch(Deno.args));
}
