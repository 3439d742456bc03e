/**
 * `custom`: the user's own TypeScript system, `{type: custom, path:
 * "./my_system.ts#answer"}`, written with `ragbench/system` (`author.ts`).
 * Its code runs in the custom-tool sandbox (`system_host.ts`), with the
 * permissions of its `side_effects` and no other; every model, tool and
 * retrieval call it makes comes back here, where it goes through the trace
 * recorder like any system's (steps, cost, the response cache, `--mock`),
 * within the system's limits (`max_model_calls`, `max_tool_calls`,
 * `max_cost_usd`: a call past one is refused, the system hears why, and the
 * question is flagged `budget_exhausted`).
 *
 * The document ids an answer cites must be documents of the corpus (an id
 * that is not ends the question with a `system` error naming it); they are
 * recorded on the result line (`cited`), not scored: retrieval is scored on
 * the retrieval and tool calls the system made through ragbench.
 *
 * @module
 */

import { z } from "zod";
import { retrieverRefSchema, systemBaseSchema, toolRefSchema } from "../../lib/config/schema.ts";
import type { Retriever } from "../../lib/retrieval/types.ts";
import type { JsonValue } from "../../lib/types.ts";
import { isAbsolute, resolvePath } from "../../lib/util/paths.ts";
import { defineSystem, NO_FLAGS, type SystemContext, SystemFailedError } from "../system.ts";
import type { SystemPassage, SystemToolResult } from "./author.ts";
import type { Ask } from "./system_messages.ts";
import type { SystemHost } from "./system_host.ts";
import { AskRefused } from "./ask_refused.ts";
import { GROUNDED_PROTOCOL, groundedMock } from "../rag_mock.ts";

/** Options of a custom system. */
export const customSystemSchema = systemBaseSchema.extend({
  /** `./file.ts#export`, relative to the config's folder. */
  path: z.string().regex(
    /^[^#]+#[A-Za-z_$][A-Za-z0-9_$]*$/,
    'write it as "./file.ts#exportName"',
  ),
  /** What its process may do besides computing: none, read/write the working folder, network. */
  side_effects: z.enum(["none", "filesystem", "network"]).default("none"),
  retriever: retrieverRefSchema.optional(),
  tools: z.array(toolRefSchema).default([]),
  /** Model calls a question may make. */
  max_model_calls: z.int().min(1).max(1000).default(20),
  max_tool_calls: z.int().min(0).max(1000).nullable().default(null),
  /** Per-question cost cap in US dollars. */
  max_cost_usd: z.number().positive().nullable().default(null),
  /** V8 heap cap of each of its processes, in MB (default 1024). */
  memory_mb: z.int().min(32).max(65_536).optional(),
  /** How long the module may take to load, in seconds (default 60). */
  load_timeout_s: z.number().positive().max(3600).optional(),
});

type CustomOptions = z.output<typeof customSystemSchema>;

/**
 * The module and export of a custom system, its path made absolute against
 * the config's folder (the working folder when none is given).
 */
export function customSystemModule(
  path: string,
  configDir: string | undefined,
): { module: string; exportName: string } {
  const [file, exportName] = path.split("#");
  return {
    module: isAbsolute(file) ? file : resolvePath(configDir ?? Deno.cwd(), file),
    exportName,
  };
}

/** The custom system type. */
export const customSystem = defineSystem({
  type: "custom",
  description:
    "Your own TypeScript system (path: ./file.ts#export), run in a sandbox with ragbench's model, tools and retriever.",
  acceptsTools: true,
  alwaysTools: [],
  options: customSystemSchema,
  // The worked example (and any system using groundedMessages) is answered by the mock as rag is.
  mock: [groundedMock],
  modelCalls: (options) => ({ min: 0, max: options.max_model_calls }),
  // ragbench starts deno for its processes, which get only what its side_effects allow.
  needs: (_options, ctx) => [{
    name: "run",
    value: Deno.execPath(),
    why: `starting the custom system's processes (${ctx.name})`,
  }],
  start(options, env) {
    const where = customSystemModule(options.path, env.configDir);
    // The sandbox's code is loaded only by a run that has a custom system.
    const host = import("./system_host.ts").then((m) =>
      m.createSystemHost({
        name: env.name,
        ...where,
        sideEffects: options.side_effects,
        ...(options.memory_mb === undefined ? {} : { memoryMb: options.memory_mb }),
        ...(options.load_timeout_s === undefined
          ? {}
          : { loadTimeoutMs: options.load_timeout_s * 1000 }),
      })
    );
    return {
      ready: host.then((h) => h.ready()),
      run: async (_options, ctx) => runCustom(await host, ctx, options, env.documentIds ?? null),
      close: async () => (await host).close(),
    };
  },
  run() {
    return Promise.reject(new TypeError("a custom system runs only once started"));
  },
});

/** Answers one question through the system's process. */
async function runCustom(
  host: SystemHost,
  ctx: SystemContext,
  options: CustomOptions,
  documents: ReadonlySet<string> | null,
) {
  const { recorder, tools, retriever, signal } = ctx;
  const flags = { ...NO_FLAGS };
  let calls = 0;
  const refuse = (what: string): never => {
    flags.budget_exhausted = true;
    throw new AskRefused(`${what} for this question is reached`);
  };
  const overCost = () =>
    options.max_cost_usd !== null && recorder.costUsd !== null &&
    recorder.costUsd >= options.max_cost_usd;
  const onAsk = async (ask: Ask): Promise<unknown> => {
    if (ask.what === "model") {
      if (recorder.modelCalls >= options.max_model_calls) {
        refuse(`The model-call limit (${options.max_model_calls})`);
      }
      if (overCost()) refuse(`The cost limit ($${options.max_cost_usd})`);
      const specs = ask.tools.map((name) => {
        const spec = tools.specs.find((s) => s.name === name);
        if (!spec) throw new AskRefused(`The system has no tool named "${name}".`);
        return spec;
      });
      const reply = await recorder.chat({
        messages: ask.messages,
        tools: specs,
        ...(ask.protocol === undefined ? {} : { protocol: GROUNDED_PROTOCOL }),
      }, signal);
      return { content: reply.content, tool_calls: reply.tool_calls, usage: reply.usage };
    }
    if (ask.what === "tool") {
      if (options.max_tool_calls !== null && recorder.toolCalls >= options.max_tool_calls) {
        refuse(`The tool-call limit (${options.max_tool_calls})`);
      }
      if (overCost()) refuse(`The cost limit ($${options.max_cost_usd})`);
      const result = await recorder.tool(
        tools,
        { id: `call_${++calls}`, name: ask.name, arguments: ask.arguments },
        signal,
      );
      const shown: SystemToolResult = {
        output: result.output,
        ...(result.data === undefined ? {} : { data: result.data as JsonValue }),
        error: result.error,
      };
      return shown;
    }
    if (retriever === null) throw new AskRefused("The system has no retriever.");
    const { step, hits } = await recorder.retrieve(retriever, ask.query, ask.k, signal);
    if (step.error) throw new AskRefused(`The retrieval failed: ${step.error.message}`);
    return hits.map((h): SystemPassage => ({
      doc_id: h.passage.doc_id,
      passage_id: h.passage.id,
      text: h.passage.text,
      score: h.score,
      ...(h.passage.page === undefined ? {} : { page: h.passage.page }),
    }));
  };
  const { answer, cited } = await host.run(
    {
      question: { id: ctx.question.id, question: ctx.question.question },
      tools: [...tools.specs],
      retriever: retriever === null ? null : { name: retriever.name, top_k: retriever.topK },
    },
    onAsk,
    signal,
  );
  checkCited(cited, documents ?? documentsOf(retriever));
  return { answer, flags, cited: [...new Set(cited)] };
}

const documentIds = new WeakMap<Retriever, ReadonlySet<string>>();

/** The ids of the documents a retriever ranks (when the plan gave no corpus ids); null: none. */
function documentsOf(retriever: Retriever | null): ReadonlySet<string> | null {
  if (retriever === null) return null;
  let ids = documentIds.get(retriever);
  if (ids === undefined) {
    ids = new Set(retriever.passages.map((p) => p.doc_id));
    documentIds.set(retriever, ids);
  }
  return ids;
}

/**
 * @throws {SystemFailedError} naming the cited ids that are not documents of the corpus.
 */
function checkCited(cited: readonly string[], known: ReadonlySet<string> | null): void {
  if (known === null) return;
  const unknown = [...new Set(cited.filter((id) => !known.has(id)))];
  if (unknown.length === 0) return;
  const shown = unknown.slice(0, 5).map((id) => `"${id.slice(0, 100)}"`).join(", ");
  throw new SystemFailedError(
    `the answer cites ${unknown.length === 1 ? "a document" : `${unknown.length} documents`} ` +
      `not in the corpus: ${shown}${unknown.length > 5 ? ", …" : ""} ` +
      `(cite the doc_id of a passage the retriever or a tool returned)`,
  );
}
