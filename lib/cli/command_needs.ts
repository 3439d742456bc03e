/**
 * The permissions each command needs, from its parsed arguments: what the
 * launcher (`ragbench.ts`) starts ragbench with. `run` needs what
 * `ragbench permissions` prints for the same options (run_needs.ts, over
 * lib/plan/permissions.ts); the others need less: `permissions` and
 * `validate` read the config (and its inputs), `report` and `compare` their
 * run folders, `tools` nothing (the MCP servers of `--config` when given),
 * `tool` what its one call needs, `init` its documents and the folder it
 * writes. A command with `--help` needs nothing.
 * Every command in main.ts has an entry (a test holds it).
 *
 * @module
 */

import { loadConfig } from "../config/load.ts";
import type { Config } from "../config/types.ts";
import { corpusSourcePath } from "../data/corpus.ts";
import { folderHolds } from "../data/corpus_files.ts";
import { embeddingNeeds } from "../plan/embedding_needs.ts";
import { INIT_DEFAULT_DOCS, initNeeds } from "../plan/init_needs.ts";
import type { Need } from "../plan/need.ts";
import { PROMPT_FILE_WHY, runNeeds, sandboxSourceNeeds } from "../plan/permissions.ts";
import { REGISTRIES } from "../plan/setup.ts";
import { toolRefsOf } from "../plan/tool_sources/registry.ts";
import { kindOf } from "../retrieval/kinds/registry.ts";
import type { ParsedArgs } from "./args.ts";
import { permissionsArgsNeeds, runArgsNeeds } from "./run_needs.ts";
import { toolChoice } from "./tool_choice.ts";

/** What one command needs, given its arguments; rejects with the command's own load errors. */
export type CommandNeeds = (args: ParsedArgs) => Promise<Need[]>;

/** Each command's needs, by command name. */
export const COMMAND_NEEDS: ReadonlyMap<string, CommandNeeds> = new Map<string, CommandNeeds>([
  ["run", async (args) => runArgsNeeds(await configOf(args.positionals[0]), args)],
  ["permissions", async (args) => permissionsArgsNeeds(await configOf(args.positionals[0]), args)],
  ["validate", async (args) => inputReads(await configOf(args.positionals[0]))],
  ["tools", toolsNeeds],
  ["tool", toolNeeds],
  ["report", (args) => Promise.resolve(reportNeeds(args))],
  ["compare", (args) => Promise.resolve(args.positionals.map((dir) => readOf(dir, "a run")))],
  ["merge", (args) => Promise.resolve(mergeNeeds(args))],
  [
    "init",
    (args) =>
      Promise.resolve(
        initNeeds(args.positionals[0] ?? INIT_DEFAULT_DOCS, args.options.get("dir") ?? "."),
      ),
  ],
]);

/** What `command` with `args` needs (nothing for `--help`). */
export async function commandNeeds(command: string, args: ParsedArgs): Promise<Need[]> {
  if (args.options.has("help")) return [];
  const needs = COMMAND_NEEDS.get(command);
  if (needs === undefined) {
    throw new TypeError(`command "${command}" declares no permissions (lib/cli/command_needs.ts)`);
  }
  return await needs(args);
}

function configOf(path: string): Promise<Config> {
  return loadConfig(path, REGISTRIES);
}

function readOf(path: string, why: string): Need {
  return { name: "read", value: path, why };
}

/**
 * Read of the config and every input it names (the mock script too: validate
 * checks it), and the PDF reader's process when the corpus holds PDFs.
 */
function inputReads(config: Config): Need[] {
  return runNeeds(config, { mock: true, runDir: "runs" }).filter((n) =>
    (n.name === "read" &&
      (["the config", "the corpus", "the questions", "the mock script"].includes(n.why) ||
        n.why.startsWith(PROMPT_FILE_WHY))) ||
    (n.name === "run" && n.why.startsWith("reading the corpus's PDF files"))
  );
}

/**
 * `tools`: nothing; with `--config`, the config and what listing its tools
 * needs (each source says: an MCP server's start).
 */
async function toolsNeeds(args: ParsedArgs): Promise<Need[]> {
  const path = args.options.get("config");
  if (path === undefined) return [];
  const config = await configOf(path);
  return [
    readOf(config.file, "the config"),
    ...toolRefsOf(config).flatMap(({ ref, source }) => source.listNeeds(ref, { mock: false })),
  ];
}

/**
 * `tool NAME`: the config and corpus it reads, and what the call needs, as
 * the tool's source says (a custom tool's process; the sandbox worker's code
 * for a built-in it runs there) and, for `search`, its retriever's kind (the
 * embedder it calls, anything else it reaches).
 */
async function toolNeeds(args: ParsedArgs): Promise<Need[]> {
  const path = args.options.get("config");
  const config = path === undefined ? null : await configOf(path);
  const needs: Need[] = [];
  if (config !== null) needs.push(readOf(config.file, "the config"));
  const corpus = config?.corpus.map(corpusSourcePath) ??
    (args.options.has("corpus") ? [args.options.get("corpus")!] : []);
  for (const source of corpus) needs.push(readOf(source, "the corpus"));
  if (corpus.some((source) => folderHolds(source, ".pdf"))) {
    needs.push({ name: "run", value: Deno.execPath(), why: "reading the corpus's PDF files" });
  }
  const choice = toolChoice(args.positionals[0], config, args);
  // An unknown tool needs nothing: the command stops with a usage error.
  if (choice.kind === "unknown") return needs;
  const { ref, source, retriever } = choice;
  needs.push(...source.needs(ref, { mock: false }));
  if (source.workerTools(ref).length > 0) needs.push(...sandboxSourceNeeds());
  if (retriever !== null) {
    const kind = kindOf(retriever.config);
    needs.push(
      ...embeddingNeeds(kind.embeddings(retriever.config), { mock: false }),
      ...kind.needs(retriever.config, { mock: false }),
    );
  }
  return needs;
}

/**
 * `merge OUT SHARD_DIR...`: the shard folders, read; OUT, written and read (its files are renamed
 * into place, and the summaries are made from the merged results file).
 */
function mergeNeeds(args: ParsedArgs): Need[] {
  const [out, ...shards] = args.positionals.map((p) => p.replace(/(?<=.)\/+$/, ""));
  return [
    ...shards.map((dir) => readOf(dir, "a shard")),
    readOf(out, "the merged run"),
    { name: "write", value: out, why: "the merged run" },
  ];
}

/** `report RUN_DIR`: the run folder, read and written; the JUnit file. */
function reportNeeds(args: ParsedArgs): Need[] {
  const dir = args.positionals[0].replace(/(?<=.)\/+$/, "");
  const needs: Need[] = [
    readOf(dir, "the run"),
    { name: "write", value: dir, why: "the run's summaries and report" },
  ];
  const junit = args.options.get("junit");
  if (junit !== undefined) needs.push({ name: "write", value: junit, why: "the JUnit file" });
  return needs;
}
