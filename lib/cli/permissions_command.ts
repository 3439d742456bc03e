/**
 * `ragbench permissions CONFIG [run options]`: prints the minimal `deno run`
 * flags a run of CONFIG with those options needs (the same options as `run`
 * takes that change it: `--mock`, `--out`, `--resume`, `--systems`,
 * `--junit`, `--dry-run`, the cache options), the matching `deno compile`
 * flags, and why each permission is needed. Reads only the config, and the
 * variables that locate the cache folder when the run uses one; when this
 * process may not read those, it says which flag lets it.
 *
 * @module
 */

import { loadConfig } from "../config/load.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import {
  compileFlags,
  compileNeeds,
  permissionFlags,
  UNSTABLE_FLAGS,
} from "../plan/permissions.ts";
import { UNRESOLVED_CACHE_DIR } from "../plan/cache_needs.ts";
import { CACHE_DIR_VARIABLES } from "../cache/cache_dir.ts";
import type { Need } from "../plan/need.ts";
import { REGISTRIES } from "../plan/setup.ts";
import { CACHE_OPTIONS, cacheUseFromArgs } from "./cache_options.ts";
import { configEmbeddings } from "../plan/embedding_needs.ts";
import {
  NEED_OPTION_SPECS,
  needOptionWords,
  permissionsArgsNeeds,
  runArgsNeeds,
  selectedConfig,
} from "./run_needs.ts";
import { RagbenchError } from "../errors.ts";
import { commandLine, DEFAULT_INVOCATION } from "./invocation.ts";
import { shellQuote } from "../run/run_lock.ts";
import { frameworkProcessLines } from "../plan/framework_needs.ts";

/** Declaration of `ragbench permissions`. */
export const PERMISSIONS_SPEC: CommandSpec = {
  name: "permissions",
  summary: "Print the minimal Deno permission flags a run of CONFIG needs.",
  positionals: [{ name: "CONFIG" }],
  options: [...NEED_OPTION_SPECS, ...CACHE_OPTIONS],
  notes:
    "Paths inside the current folder are printed relative to it, so run this from where you\n" +
    "will run ragbench. Give the options the run will get: the flags are for that run.",
};

/** Runs the command; returns the exit code. */
export async function permissionsCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const configPath = args.positionals[0];
  const config = await loadConfigOrSay(configPath, needOptionWords(args), io);
  const cwd = Deno.cwd();
  const needs = runArgsNeeds(config, args);
  const selected = selectedConfig(config, args);
  const cache = cacheUseFromArgs(args);
  const compile = compileNeeds(selected, {
    mock: args.options.has("mock"),
    runDir: args.options.get("resume") ?? args.options.get("out") ?? "runs",
    cacheDir: cache.dir,
    embeddings: configEmbeddings(selected),
    cache,
  });
  const lines = [
    `# deno run flags for: ragbench run ${
      [configPath, ...needOptionWords(args)].map(shellQuote).join(" ")
    }`,
    [...UNSTABLE_FLAGS, ...permissionFlags(needs, cwd)].join(" "),
    "",
    "# deno compile flags for a binary that runs the same (fixed when it is built)",
    compileFlags(compile, cwd).join(" "),
    "",
    "# why",
    ...explain(needs, cwd),
  ];
  const frameworks = frameworkProcessLines(selected);
  if (frameworks.length) {
    lines.push(
      "",
      "# the framework systems' processes: each gets only these flags, a cleared environment and no network",
      ...frameworks,
    );
  }
  if (needs.some((n) => n.why === UNRESOLVED_CACHE_DIR)) {
    const again = commandLine(
      io.invocation ?? DEFAULT_INVOCATION,
      ["permissions", configPath, ...needOptionWords(args)],
      {
        needs: [
          ...permissionsArgsNeeds(config, args),
          ...CACHE_DIR_VARIABLES.map((v): Need => ({ name: "env", value: v, why: "" })),
        ],
      },
    );
    lines.push(
      "",
      "# not complete: the run uses the cache folder, which this process may not look up",
      `# (it may not read $${CACHE_DIR_VARIABLES.join(", $")}), so the folder's`,
      "# --allow-read and --allow-write are missing above. Print them with:",
      `#   ${again}`,
      "# or give the folder with --cache-dir DIR.",
    );
  }
  io.out(lines.join("\n"));
  return 0;
}

/**
 * Loads the config; a config this process may not read is reported with the
 * flag that lets it, as the command that works.
 *
 * @throws {RagbenchError} (code "permission") naming that command; other load errors unchanged.
 */
async function loadConfigOrSay(configPath: string, options: string[], io: CliIO) {
  try {
    return await loadConfig(configPath, REGISTRIES);
  } catch (error) {
    const cause = error instanceof RagbenchError ? error.cause : undefined;
    if (!(cause instanceof Deno.errors.NotCapable)) throw error;
    const again = commandLine(
      io.invocation ?? DEFAULT_INVOCATION,
      ["permissions", configPath, ...options],
      { needs: [{ name: "read", value: configPath, why: "the config" }] },
    );
    throw new RagbenchError(
      "permission",
      `Cannot read the config "${configPath}": this process may not read it. Run:\n  ${again}`,
      { cause: error },
    );
  }
}

function explain(needs: readonly Need[], cwd: string): string[] {
  const rows = needs.map((n) => [permissionFlags([n], cwd)[0], n.why]);
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([flag, why]) => `${flag.padEnd(width)}  ${why}`);
}
