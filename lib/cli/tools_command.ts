/**
 * `ragbench tools [--json]` lists the built-in tools (and, with `--config`,
 * the tools the config's sources list: an MCP server's); `ragbench tool NAME
 * --args JSON` makes one call through the same sandbox a run uses and prints
 * the result as one JSON object. `tool` exits 0 whenever the call ran, even
 * when its result carries an error, and 2 for usage errors.
 *
 * @module
 */

import { z } from "zod";
import type { Config } from "../config/types.ts";
import { loadCorpora } from "../data/corpus.ts";
import { UsageError } from "../errors.ts";
import type { Corpus } from "../types.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { parametersJsonSchema, type ToolDef } from "../../tools/define_tool.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import type { ToolHost } from "../../tools/host.ts";
import { createWorkerHost, type WorkerHost } from "../../tools/sandbox/worker_host.ts";
import { createToolbox } from "../../tools/toolbox.ts";
import { createRetrievalHost } from "../../tools/retrieval_host.ts";
import { RunRetrievers } from "../retrieval/registry.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import { toolChoice } from "./tool_choice.ts";
import { commandLine, DEFAULT_INVOCATION } from "./invocation.ts";
import { loadConfig } from "../config/load.ts";
import { REGISTRIES } from "../plan/setup.ts";
import { isoDateSchema, toolRulesSchema } from "../config/schema.ts";
import { toolRefsOf } from "../plan/tool_sources/registry.ts";
import { Shared, type ToolListing } from "../plan/tool_sources/source.ts";

/** Declaration of `ragbench tools`. */
export const TOOLS_SPEC: CommandSpec = {
  name: "tools",
  summary: "List the built-in tools: description, side effects, parameters and options.",
  positionals: [],
  options: [
    { name: "json", description: "Print a JSON list (with the JSON Schemas)." },
    {
      name: "config",
      value: "CONFIG",
      description: "Also list the MCP tools this config allows (starts their servers to ask them).",
    },
  ],
};

/** Declaration of `ragbench tool`. */
export const TOOL_SPEC: CommandSpec = {
  name: "tool",
  summary: "Make one tool call, in the sandbox a run uses, and print its result as JSON.",
  positionals: [{ name: "NAME" }],
  options: [
    { name: "args", value: "JSON", description: 'The arguments, a JSON object (default "{}").' },
    {
      name: "config",
      value: "CONFIG",
      description: "Use this config's corpus, tool rules, tool options, custom tools and date.",
    },
    { name: "corpus", value: "PATH", description: "Use this corpus (a file or folder)." },
    { name: "today", value: "YYYY-MM-DD", description: 'What "today" is (default 2026-01-01).' },
    {
      name: "retriever",
      value: "NAME",
      description: "For search: the config's retriever of that name (default: its default one).",
    },
  ],
  notes:
    "Prints {output, data, error, truncated, cost_usd, latency_ms}. Exit status: 0 when the\n" +
    "call ran (even if its result has an error), 2 for a usage error.",
};

/** Runs `ragbench tools`. */
export async function toolsCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const defs = [...BUILTIN_TOOLS.values()];
  const configPath = args.options.get("config");
  const listed = configPath
    ? await listConfigTools(await loadConfig(configPath, REGISTRIES), io)
    : [];
  if (args.options.has("json")) {
    io.out(JSON.stringify([...defs.map(describeJson), ...listed.map(listingJson)], null, 2));
    return 0;
  }
  io.out([...defs.map(describeText), ...listed.map(listingText)].join("\n\n"));
  return 0;
}

/** The tools the config's systems offer that their sources list (an MCP server's, read from it). */
async function listConfigTools(config: Config, io: CliIO): Promise<ToolListing[]> {
  const shared = new Shared();
  try {
    const seen = new Set<string>();
    const out: ToolListing[] = [];
    for (const { system, ref, source } of toolRefsOf(config)) {
      const listed = await source.list(ref, {
        config,
        system,
        signal: io.signal,
        progress: io.progress,
        shared,
      });
      for (const tool of listed) {
        const key = `${tool.name}\0${tool.origin.value}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(tool);
      }
    }
    return out;
  } finally {
    await shared.closeAll();
  }
}

function listingJson(tool: ToolListing) {
  return {
    name: tool.name,
    description: tool.description,
    side_effects: tool.side_effects,
    parameters: tool.parameters,
    [tool.origin.key]: tool.origin.value,
  };
}

function listingText(tool: ToolListing): string {
  return [
    `${tool.name}  (${tool.origin.text}, side effects: ${tool.side_effects})`,
    `  ${tool.description}`,
    "  parameters:",
    ...fieldLines(tool.parameters),
  ].join("\n");
}

function describeJson(def: ToolDef) {
  return {
    name: def.name,
    description: def.description,
    side_effects: def.sideEffects,
    parameters: parametersJsonSchema(def),
    options: def.options ? schemaOf(def.options) : null,
  };
}

function describeText(def: ToolDef): string {
  const lines = [`${def.name}  (side effects: ${def.sideEffects})`, `  ${def.description}`];
  lines.push("  parameters:", ...fieldLines(parametersJsonSchema(def)));
  if (def.options) lines.push("  options (config):", ...fieldLines(schemaOf(def.options)));
  return lines.join("\n");
}

function fieldLines(schema: Record<string, unknown>): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required ?? []) as string[]);
  const entries = Object.entries(properties);
  if (entries.length === 0) return ["    (none)"];
  return entries.map(([name, p]) => {
    const type = Array.isArray(p.enum)
      ? p.enum.map((v) => JSON.stringify(v)).join(" | ")
      : String(p.type ?? "any");
    const note = required.has(name)
      ? "required"
      : p.default !== undefined
      ? `default ${JSON.stringify(p.default)}`
      : "optional";
    return `    ${name}: ${type}, ${note} — ${p.description ?? ""}`;
  });
}

function schemaOf(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** Runs `ragbench tool`. */
export async function toolCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const name = args.positionals[0];
  const rawArgs = args.options.get("args") ?? "{}";
  try {
    JSON.parse(rawArgs);
  } catch (error) {
    throw new UsageError(
      `--args must be JSON: ${(error as Error).message}. Example: --args '{"expression": "2+2"}'`,
    );
  }
  if (args.options.has("config") && args.options.has("corpus")) {
    throw new UsageError("Give either --config or --corpus, not both.");
  }
  const today = args.options.get("today");
  if (today !== undefined && !isoDateSchema.safeParse(today).success) {
    throw new UsageError(`--today must be a date written YYYY-MM-DD (got "${today}").`);
  }
  const configPath = args.options.get("config");
  const config = configPath ? await loadConfig(configPath, REGISTRIES) : null;
  const choice = toolChoice(name, config, args);
  if (choice.kind === "unknown") {
    throw new UsageError(
      `Unknown tool "${name}" — ${suggestion(name, choice.known)} See ${
        commandLine(io.invocation ?? DEFAULT_INVOCATION, ["tools"])
      }.`,
    );
  }
  const { ref, source, retriever } = choice;
  const corpusPaths = config?.corpus ??
    (args.options.has("corpus") ? [args.options.get("corpus")!] : []);
  const corpus: Corpus = corpusPaths.length
    ? (await loadCorpora(corpusPaths)).corpus
    : { documents: [], tables: [] };
  const now = today ?? config?.evaluation.tools_now ?? "2026-01-01";
  const rules = config?.tools ?? toolRulesSchema.parse({});
  // The hosts a run's plan would give it: the worker for a built-in, search in this process over
  // the default retriever or the one --retriever names, a custom tool's own process.
  // `retrievers` owns the embedder pool (and embedding cache) of a vector or hybrid search.
  const made: { worker?: WorkerHost; search?: ToolHost; retrievers?: RunRetrievers } = {};
  const shared = new Shared();
  try {
    const offered = await source.offer(ref, {
      config: { tools: rules },
      system: "ragbench tool",
      env: { corpus, now },
      maxProcesses: 1,
      mock: false,
      progress: io.progress,
      builtinHost: () => made.worker ??= createWorkerHost({ corpus, now, prepare: [name] }),
      async searchHost() {
        if (retriever === null) throw new TypeError(`tool "${name}" is not search`);
        made.retrievers = new RunRetrievers(corpus, { progress: io.progress });
        const built = await made.retrievers.get(retriever, io.signal);
        return made.search = createRetrievalHost(built, { corpus, now });
      },
      toolCache: null,
      mcp: { signal: io.signal },
      shared,
    });
    const tool = offered.find((t) => t.name === name);
    if (tool === undefined) throw new TypeError(`tool "${name}" was not offered by its source`);
    await made.worker?.ready();
    const session = createToolbox([tool], rules).session("cli");
    const { result } = await session.execute(name, rawArgs, io.signal);
    session.close();
    io.out(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    await Promise.all([shared.closeAll(), made.worker?.close(), made.search?.close()]);
    await made.retrievers?.close();
  }
}
