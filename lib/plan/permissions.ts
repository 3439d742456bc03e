/**
 * The Deno permissions a run needs, derived from its config: read of the
 * config and the files it names, read and write of the run directory, env
 * only for the API key variables and net only for the hosts of the models
 * the systems use (each system's `model:` merged over the run's), run only to
 * start custom tools' processes, the code agent's sandbox processes and the
 * PDF reader (for a corpus folder that holds a `.pdf` file). `ragbench permissions` prints them as
 * flags; `ragbench run` checks them with `Deno.permissions.query` before any
 * question runs.
 *
 * @module
 */

import { dirname, fileURLToPath, isAbsolute, relativePath, resolvePath } from "../util/paths.ts";
import type { Config } from "../config/types.ts";
import { corpusSourcePath } from "../data/corpus.ts";
import { folderHolds } from "../data/corpus_files.ts";
import { questionSourcePath } from "../data/questions.ts";
import type { EmbeddingConfig } from "../config/retriever_schema.ts";
import { embeddingNeeds, retrieverNeeds } from "./embedding_needs.ts";
import { callsModel, SYSTEMS } from "../../systems/registry.ts";
import {
  type CacheUse,
  hasReplayingSystems,
  hasSideEffectTools,
  responseCacheNeeds,
} from "./cache_needs.ts";
import { frameworkNeeds } from "./framework_needs.ts";
import { customSystemCompiledNeeds } from "./custom_system_needs.ts";
import { modelHost, type Need } from "./need.ts";
import { toolRefsOf } from "./tool_sources/registry.ts";

/** The system type whose programs run in `deno run` subprocesses (`systems/code_agent.ts`). */
const CODE_AGENT_TYPE = "code_agent";

/** Flags every ragbench process needs beside permissions. */
export const UNSTABLE_FLAGS = ["--unstable-worker-options", "--unstable-raw-imports"] as const;

const WORKER_ENTRY = fileURLToPath(
  new URL("../../tools/sandbox/builtin_worker.ts", import.meta.url),
);
/**
 * ragbench's own source folders. Deno loads a worker's modules with the
 * parent's read permission, so the sandbox worker (which itself gets none)
 * needs the parent to be able to read the tool code it runs.
 */
const SANDBOX_SOURCES = ["../../tools", "../../lib"].map((p) =>
  fileURLToPath(new URL(p, import.meta.url)).replace(/\/$/, "")
);

/** What `ragbench run` needs besides the config: the run directory, the caches, the embedders. */
export interface RunNeedsOptions {
  mock: boolean;
  runDir: string;
  /** `--cache-dir`, when given (the embedding cache; the response cache takes it from `cache`). */
  cacheDir?: string;
  /** Every `embedding:` of the retrievers the run uses (see embedding_needs.ts). */
  embeddings?: readonly EmbeddingConfig[];
  /**
   * `--cache` and friends; absent means no response cache. In `--cache replay`
   * the models and the embedders need no network and no API key.
   */
  cache?: CacheUse;
  /** `--junit FILE`: written through a temporary file in the run directory, so FILE alone. */
  junit?: string;
}

/** Starts the reason of a read of a system's prompt file (the config loader reads it). */
export const PROMPT_FILE_WHY = "the prompt file";

/** Read of ragbench's own tool code, which the sandbox worker's modules are loaded from. */
export function sandboxSourceNeeds(): Need[] {
  return SANDBOX_SOURCES.map((path): Need => ({
    name: "read",
    value: path,
    why: "ragbench's tool code, loaded by the sandbox worker",
  }));
}

/** What `ragbench run CONFIG` needs, writing to `runDir` (default `runs`). */
export function runNeeds(config: Config, options: RunNeedsOptions): Need[] {
  const needs: Need[] = [{ name: "read", value: config.file, why: "the config" }];
  for (const source of config.corpus) {
    needs.push({ name: "read", value: corpusSourcePath(source), why: "the corpus" });
  }
  for (const source of config.questions) {
    needs.push({ name: "read", value: questionSourcePath(source), why: "the questions" });
  }
  for (const system of config.systems) {
    for (const [slot, path] of Object.entries(system.prompt_files ?? {})) {
      needs.push({
        name: "read",
        value: path,
        why: `${PROMPT_FILE_WHY} of ${system.name} (${slot})`,
      });
    }
  }
  if (options.mock) {
    for (const path of config.mock_script) {
      needs.push({ name: "read", value: path, why: "the mock script" });
    }
  }
  needs.push(...sandboxSourceNeeds());
  needs.push(
    { name: "read", value: options.runDir, why: "the run directory (renaming files into it)" },
    { name: "write", value: options.runDir, why: "the run directory" },
  );
  if (options.junit !== undefined) {
    needs.push({ name: "write", value: options.junit, why: "the JUnit file (--junit)" });
  }
  // In replay mode nothing is sent to a model: no key, no host.
  if (!options.mock && options.cache?.mode !== "replay") {
    // Every model a system calls (each merged over the run's `model:`), deduplicated below; a
    // system that calls none (retrieval_only) needs no key and no host.
    for (const system of config.systems.filter(callsModel)) {
      const model = system.model;
      const own = model !== config.model;
      const whose = own ? `system ${system.name}'s model` : "model";
      if (model.api_key_env !== null) {
        needs.push({
          name: "env",
          value: model.api_key_env,
          why: `the ${whose} API key (${own ? "its model.api_key_env" : "model.api_key_env"})`,
        });
      }
      needs.push({ name: "net", value: modelHost(model.base_url), why: `the ${whose} API` });
    }
  }
  needs.push(...embeddingNeeds(options.embeddings ?? [], {
    ...options,
    replay: options.cache?.mode === "replay",
  }));
  needs.push(...retrieverNeeds(config, options));
  if (options.cache !== undefined) {
    needs.push(...responseCacheNeeds(options.cache, {
      mock: options.mock,
      sideEffectTools: hasSideEffectTools(config),
      services: hasReplayingSystems(config),
    }));
  }
  // Each tool's source says what it needs (custom tools' processes, MCP servers).
  for (const { ref, source } of toolRefsOf(config)) needs.push(...source.needs(ref, options));
  if (config.systems.some((s) => s.type === CODE_AGENT_TYPE)) {
    needs.push({
      name: "run",
      value: Deno.execPath(),
      why: "starting the code agent's sandbox processes (deno run, no permissions)",
    });
  }
  if (readsPdf(config)) {
    needs.push({
      name: "run",
      value: Deno.execPath(),
      why: "reading the corpus's PDF files (deno run, no permissions)",
    });
  }
  needs.push(...frameworkNeeds(config));
  // Each deployed pipeline says what reaching it needs (nothing in --mock or --cache replay).
  needs.push(...systemNeeds(config, options));
  return dedupe(needs);
}

/**
 * What the systems themselves need (`SystemDef.needs`): a deployed pipeline's host, program and
 * the variables its `${VAR}` templates name; nothing in `--mock` or `--cache replay`.
 */
function systemNeeds(config: Config, options: RunNeedsOptions): Need[] {
  return config.systems.flatMap((system) =>
    SYSTEMS.get(system.type)?.needs?.(system.options as never, {
      name: system.name,
      mock: options.mock,
      replay: options.cache?.mode === "replay",
      configDir: dirname(config.file),
    }) ?? []
  );
}

/** Whether a corpus folder of the config holds a PDF (read in a subprocess). */
function readsPdf(config: Config): boolean {
  return config.corpus.some((s) =>
    (typeof s === "string" || !("beir" in s)) && folderHolds(corpusSourcePath(s), ".pdf")
  );
}

/**
 * What a compiled binary needs for the same run: the process's own needs,
 * plus what its custom tools' processes need (a compiled binary starts
 * itself for them, with the permissions it was built with, and each process
 * then drops what its tool's side effects do not need).
 */
export function compileNeeds(config: Config, options: RunNeedsOptions): Need[] {
  // A compiled binary carries its own code: no read of the source folders.
  const needs = runNeeds(config, options).filter((n) =>
    n.name !== "run" && !SANDBOX_SOURCES.includes(n.value)
  );
  for (const { ref, source } of toolRefsOf(config)) {
    needs.push(...source.compiledNeeds(ref, options));
  }
  // A command system's program is the user's, run by the binary as by `deno run`.
  needs.push(...systemNeeds(config, options).filter((n) => n.name === "run"));
  if (readsPdf(config)) {
    needs.push({ name: "run", value: "ragbench", why: "reading the corpus's PDF files" });
  }
  needs.push(...customSystemCompiledNeeds(config));
  return dedupe(needs);
}

/** The permission flags for `needs`, paths relative to `cwd` where they lie inside it. */
export function permissionFlags(needs: readonly Need[], cwd: string): string[] {
  const flags: string[] = [];
  for (const name of ["read", "write", "env", "net", "run", "sys"] as const) {
    const values = needs.filter((n) => n.name === name).map((n) =>
      name === "read" || name === "write" ? displayPath(n.value, cwd) : n.value
    );
    if (values.length === 0) continue;
    flags.push(
      values.includes("") ? `--allow-${name}` : `--allow-${name}=${[...new Set(values)].join(",")}`,
    );
  }
  return flags;
}

/** The full `deno compile` flags for `needs` (the worker entry must be included explicitly). */
export function compileFlags(needs: readonly Need[], cwd: string): string[] {
  return [
    ...UNSTABLE_FLAGS,
    `--include=${displayPath(WORKER_ENTRY, cwd)}`,
    ...permissionFlags(needs, cwd),
  ];
}

/** The needs this process was not granted. */
export function missingNeeds(needs: readonly Need[]): Need[] {
  return needs.filter((need) => Deno.permissions.querySync(descriptor(need)).state !== "granted");
}

function descriptor(need: Need): Deno.PermissionDescriptor {
  switch (need.name) {
    case "read":
    case "write":
      return { name: need.name, path: need.value };
    case "env":
      return { name: "env", variable: need.value };
    case "net":
      return need.value ? { name: "net", host: need.value } : { name: "net" };
    case "run":
      return need.value ? { name: "run", command: need.value } : { name: "run" };
    case "sys":
      return { name: "sys", kind: need.value as Deno.SysPermissionDescriptor["kind"] };
  }
}

function displayPath(path: string, cwd: string): string {
  const absolute = isAbsolute(path) ? path : resolvePath(cwd, path);
  const rel = relativePath(cwd, absolute);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? absolute : rel;
}

function dedupe(needs: Need[]): Need[] {
  const seen = new Set<string>();
  return needs.filter((n) => {
    const key = `${n.name}\0${n.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
