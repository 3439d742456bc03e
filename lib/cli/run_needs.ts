/**
 * What a `ragbench run` command line needs, from its config and the options
 * that change it (`--mock`, `--out`, `--resume`, `--systems`, `--junit`,
 * `--dry-run`, the cache options): one function that `run` checks its
 * permissions with, `permissions` prints, and the launcher (`ragbench.ts`)
 * grants, so the three never disagree. The derivation itself is
 * `lib/plan/permissions.ts`.
 *
 * @module
 */

import type { Config } from "../config/types.ts";
import { UsageError } from "../errors.ts";
import { CACHE_DIR_VARIABLES } from "../cache/cache_dir.ts";
import { configEmbeddings } from "../plan/embedding_needs.ts";
import type { Need } from "../plan/need.ts";
import { PROMPT_FILE_WHY, runNeeds } from "../plan/permissions.ts";
import type { OptionSpec, ParsedArgs } from "./args.ts";
import { cacheUseFromArgs } from "./cache_options.ts";

/** The options of `run` that change what it needs, in the order a printed command gives them. */
export const NEED_OPTIONS: readonly string[] = [
  "out",
  "resume",
  "mock",
  "systems",
  "junit",
  "dry-run",
  "cache",
  "cache-tools",
  "cache-dir",
];

const SWITCHES = new Set(["mock", "dry-run"]);

/** The declarations `permissions` shares with `run` for them (the cache options come apart). */
export const NEED_OPTION_SPECS: readonly OptionSpec[] = [
  { name: "mock", description: "For a --mock run (no network, no API key)." },
  { name: "out", value: "DIR", description: "For a run writing to DIR (default runs)." },
  { name: "resume", value: "DIR", description: "For a run continuing the run in DIR." },
  { name: "systems", value: "A,B", description: "For a run of these systems only." },
  { name: "junit", value: "FILE", description: "For a run also writing JUnit XML to FILE." },
  { name: "dry-run", description: "For a --dry-run (read access to the inputs only)." },
];

/**
 * The `--systems` names; a list with no name in it is a usage error, not a
 * run of nothing (an unset CI variable must not make a passing gate).
 *
 * @throws {UsageError} when the option is given but names no system.
 */
export function systemsOption(args: ParsedArgs): string[] | undefined {
  const raw = args.options.get("systems");
  if (raw === undefined) return undefined;
  const names = raw.split(",").map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) {
    throw new UsageError(
      `--systems names no system (got "${raw}"); list them by name, e.g. --systems a,b, or leave the option out to run every system.`,
    );
  }
  return names;
}

/** The config with only the `--systems` given (all of them without the option). */
export function selectedConfig(config: Config, args: ParsedArgs): Config {
  const chosen = systemsOption(args);
  return chosen
    ? { ...config, systems: config.systems.filter((s) => chosen.includes(s.name)) }
    : config;
}

/**
 * What `ragbench run CONFIG` with `args` needs: only the selected systems'
 * (`--systems a` must not need system b's model host or key), the run
 * directory (`--resume` or `--out` DIR, else `runs`), the JUnit file, the
 * caches; with `--dry-run`, only the reads of its inputs.
 *
 * @throws {UsageError} for a bad cache option or an empty `--systems`.
 */
export function runArgsNeeds(config: Config, args: ParsedArgs): Need[] {
  const needed = selectedConfig(config, args);
  const junit = args.options.get("junit");
  const needs = runNeeds(needed, {
    mock: args.options.has("mock"),
    runDir: args.options.get("resume") ?? args.options.get("out") ?? "runs",
    embeddings: configEmbeddings(needed),
    cache: cacheUseFromArgs(args),
    cacheDir: args.options.get("cache-dir"),
    ...(junit === undefined ? {} : { junit }),
  });
  return args.options.has("dry-run") ? needs.filter(isInputRead) : needs;
}

/**
 * What `ragbench permissions CONFIG` with the same options needs: read of the
 * config and its prompt files (loading the config reads them) and, when the
 * run uses a cache folder, the variables that locate it (so it prints the
 * folder, not only the variables).
 */
export function permissionsArgsNeeds(config: Config, args: ParsedArgs): Need[] {
  const cacheVariables = runArgsNeeds(config, args).filter((n) =>
    n.name === "env" && (CACHE_DIR_VARIABLES as readonly string[]).includes(n.value)
  );
  // Loading the config reads its prompt files too.
  const prompts = runArgsNeeds(config, args).filter((n) =>
    n.name === "read" && n.why.startsWith(PROMPT_FILE_WHY)
  );
  return [{ name: "read", value: config.file, why: "the config" }, ...prompts, ...cacheVariables];
}

/** `args`' options of {@link NEED_OPTIONS} as command-line words, in that order. */
export function needOptionWords(args: ParsedArgs): string[] {
  const words: string[] = [];
  for (const name of NEED_OPTIONS) {
    const value = args.options.get(name);
    if (value === undefined) continue;
    words.push(`--${name}`);
    if (!SWITCHES.has(name)) words.push(value);
  }
  return words;
}

/** A read of one of the run's inputs (all that --dry-run needs). */
function isInputRead(need: Need): boolean {
  return need.name === "read" &&
    (["the config", "the corpus", "the questions", "the mock script"].includes(need.why) ||
      need.why.startsWith(PROMPT_FILE_WHY));
}
