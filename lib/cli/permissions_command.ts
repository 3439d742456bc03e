/**
 * `ragbench permissions CONFIG [--mock] [--out DIR]`: prints the minimal
 * `deno run` flags a run of CONFIG needs, the matching `deno compile`
 * flags, and why each permission is needed. Reads only the config.
 *
 * @module
 */

import { loadConfig } from "../config/load.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import { configEmbeddings } from "../plan/embedding_needs.ts";
import type { CliIO } from "./io.ts";
import {
  compileFlags,
  compileNeeds,
  permissionFlags,
  runNeeds,
  UNSTABLE_FLAGS,
} from "../plan/permissions.ts";
import type { Need } from "../plan/need.ts";
import { REGISTRIES } from "../plan/setup.ts";
import { CACHE_OPTIONS, cacheUseFromArgs } from "./cache_options.ts";
import { frameworkProcessLines } from "../plan/framework_needs.ts";

/** Declaration of `ragbench permissions`. */
export const PERMISSIONS_SPEC: CommandSpec = {
  name: "permissions",
  summary: "Print the minimal Deno permission flags a run of CONFIG needs.",
  positionals: [{ name: "CONFIG" }],
  options: [
    { name: "mock", description: "For a --mock run (no network, no API key)." },
    { name: "out", value: "DIR", description: "For a run writing to DIR (default runs)." },
    ...CACHE_OPTIONS,
  ],
  notes:
    "Paths inside the current folder are printed relative to it, so run this from where you\n" +
    "will run ragbench.",
};

/** Runs the command; returns the exit code. */
export async function permissionsCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const configPath = args.positionals[0];
  const mock = args.options.has("mock");
  const config = await loadConfig(configPath, REGISTRIES);
  const cache = cacheUseFromArgs(args);
  const options = {
    mock,
    runDir: args.options.get("out") ?? "runs",
    cacheDir: cache.dir,
    embeddings: configEmbeddings(config),
    cache,
  };
  const cwd = Deno.cwd();
  const needs = runNeeds(config, options);
  const frameworks = frameworkProcessLines(config);
  io.out(
    [
      `# deno run flags for: ragbench run ${configPath}${mock ? " --mock" : ""}${cacheFlags(args)}`,
      [...UNSTABLE_FLAGS, ...permissionFlags(needs, cwd)].join(" "),
      "",
      "# deno compile flags for a binary that runs the same (fixed when it is built)",
      compileFlags(compileNeeds(config, options), cwd).join(" "),
      "",
      "# why",
      ...explain(needs, cwd),
      ...(frameworks.length
        ? [
          "",
          "# the framework systems' processes: each gets only these flags, a cleared environment and no network",
          ...frameworks,
        ]
        : []),
    ].join("\n"),
  );
  return 0;
}

/** The cache options given, echoed in the header line. */
function cacheFlags(args: ParsedArgs): string {
  return ["cache", "cache-tools", "cache-dir"]
    .filter((name) => args.options.has(name))
    .map((name) => ` --${name} ${args.options.get(name)}`)
    .join("");
}

function explain(needs: readonly Need[], cwd: string): string[] {
  const rows = needs.map((n) => [permissionFlags([n], cwd)[0], n.why]);
  const width = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([flag, why]) => `${flag.padEnd(width)}  ${why}`);
}
