/**
 * `ragbench tools [--json]` lists the built-in tools; `ragbench tool NAME
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
import { createWorkerHost } from "../../tools/sandbox/worker_host.ts";
import { createToolbox } from "../../tools/toolbox.ts";
import { createRetrievalHost } from "../../tools/retrieval_host.ts";
import { RunRetrievers } from "../retrieval/registry.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import { defaultOptions, offerBuiltin, offerCustom } from "../plan/plan.ts";
import { toolChoice } from "./tool_choice.ts";
import { commandLine, DEFAULT_INVOCATION } from "./invocation.ts";
import { loadConfig } from "../config/load.ts";
import { REGISTRIES } from "../plan/setup.ts";
import { isoDateSchema, toolRulesSchema } from "../config/schema.ts";
import { serverLabel } from "../config/mcp_ref.ts";
import { offerMcpTools } from "../../tools/mcp/host.ts";
import { createMcpPool } from "../../tools/mcp/pool.ts";

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
  const mcp = configPath ? await listMcpTools(await loadConfig(configPath, REGISTRIES), io) : [];
  if (args.options.has("json")) {
    io.out(JSON.stringify([...defs.map(describeJson), ...mcp], null, 2));
    return 0;
  }
  io.out([...defs.map(describeText), ...mcp.map(describeMcpText)].join("\n\n"));
  return 0;
}

interface McpListing {
  name: string;
  description: string;
  side_effects: string;
  parameters: Record<string, unknown>;
  mcp_server: string;
}

/** The MCP tools the config allows, read from their servers (started, then closed). */
async function listMcpTools(config: Config, io: CliIO): Promise<McpListing[]> {
  const systems = config.systems.filter((s) => s.tools.some((t) => t.kind === "mcp"));
  if (systems.length === 0) return [];
  io.progress("Starting the config's MCP servers to read their tools…");
  // Ctrl-C stops a start in progress at once (the open fails saying so).
  const pool = createMcpPool({ signal: io.signal });
  try {
    const seen = new Set<string>();
    const out: McpListing[] = [];
    for (const system of systems) {
      for (const ref of system.tools) {
        if (ref.kind !== "mcp") continue;
        for (const tool of await offerMcpTools(ref, pool, config.tools, system.name)) {
          const key = `${tool.name}\0${serverLabel(ref.server)}`;
          if (seen.has(key)) continue;
          seen.add(key);
          out.push({
            name: tool.name,
            description: tool.description,
            side_effects: tool.sideEffects,
            parameters: tool.parameters,
            mcp_server: serverLabel(ref.server),
          });
        }
      }
    }
    return out;
  } finally {
    await pool.close();
  }
}

function describeMcpText(tool: McpListing): string {
  return [
    `${tool.name}  (MCP server "${tool.mcp_server}", side effects: ${tool.side_effects})`,
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
  const corpusPaths = config?.corpus ??
    (args.options.has("corpus") ? [args.options.get("corpus")!] : []);
  const corpus: Corpus = corpusPaths.length
    ? (await loadCorpora(corpusPaths)).corpus
    : { documents: [], tables: [] };
  const now = today ?? config?.evaluation.tools_now ?? "2026-01-01";
  const rules = config?.tools ?? toolRulesSchema.parse({});
  let tool;
  // Owns the embedder pool (and embedding cache) of a vector or hybrid search.
  let retrievers: RunRetrievers | null = null;
  if (choice.kind === "custom") {
    tool = await offerCustom(choice.ref, { corpus, now, maxProcesses: 1, progress: io.progress }, {
      tools: rules,
    });
  } else if (choice.kind === "search") {
    // As in a run: search is served in this process, over the default retriever or the one named.
    retrievers = new RunRetrievers(corpus, { progress: io.progress });
    const retriever = await retrievers.get(choice.retriever, io.signal);
    const host = createRetrievalHost(retriever, { corpus, now });
    tool = offerBuiltin(name, builtinOptions(config, name), host, { tools: rules });
  } else {
    const host = createWorkerHost({ corpus, now, prepare: [name] });
    tool = offerBuiltin(name, builtinOptions(config, name), host, { tools: rules });
    await host.ready();
  }
  try {
    const session = createToolbox([tool], rules).session("cli");
    const { result } = await session.execute(name, rawArgs, io.signal);
    session.close();
    io.out(JSON.stringify(result, null, 2));
    return 0;
  } finally {
    await tool.host.close();
    retrievers?.close();
  }
}

/** The options the config gives the tool (first system listing it), or its defaults. */
function builtinOptions(config: Config | null, name: string): Record<string, unknown> {
  for (const system of config?.systems ?? []) {
    for (const tool of system.tools) {
      if (tool.kind === "builtin" && tool.name === name) return tool.options;
    }
  }
  return defaultOptions(name);
}
