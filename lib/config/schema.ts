/**
 * The config file format: zod schemas (strict: an unknown key is an error).
 * System entries and tool references are checked in a second pass against
 * the registries (see `check_systems.ts`), because their allowed keys depend on the
 * system type and the tool.
 *
 * @module
 */

import { z } from "zod";
import { modelOverrideSchema, modelSchema } from "../llm/model_config.ts";
import { retrieverSchema } from "./retriever_schema.ts";
import { pluginSchema } from "./plugin_schema.ts";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A run or system name: letters, digits, `_`, `.`, `-`. */
export const nameSchema = z.string().regex(
  NAME,
  "use letters, digits, _, . and - (starting with a letter or digit)",
);

/** A path, or a non-empty list of paths (merged in order). */
export const pathsSchema = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

/** A BEIR split name (`test`, `dev`, `train`, ...): the file `qrels/<split>.tsv`. */
export const splitSchema = z.string().regex(
  /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
  "use letters, digits, _, . and - (the file qrels/<split>.tsv)",
);

/** `{beir: FOLDER}`: the `corpus.jsonl` of a BEIR folder. */
export const beirCorpusSchema = z.strictObject({ beir: z.string().min(1) });

/** `{beir: FOLDER, split}`: `queries.jsonl` and `qrels/<split>.tsv` of a BEIR folder. */
export const beirQuestionsSchema = z.strictObject({
  beir: z.string().min(1),
  split: splitSchema.default("test"),
});

/**
 * `{path, on_error}`: a corpus file or folder, and what to do with a file of
 * the folder that cannot be read — `stop` the load (the default) or `skip`
 * it and list it.
 */
export const corpusPathSchema = z.strictObject({
  path: z.string().min(1),
  on_error: z.enum(["stop", "skip"]).default("stop"),
});

/**
 * `corpus:` — a path, a `{path, on_error}`, a `{beir: FOLDER}`, or a
 * non-empty list of them (merged in order).
 */
export const corpusSourcesSchema = z.union([
  z.string().min(1),
  beirCorpusSchema,
  corpusPathSchema,
  z.array(z.union([z.string().min(1), beirCorpusSchema, corpusPathSchema])).min(1),
]);

/** `questions:` — a path, a `{beir: FOLDER, split}`, or a non-empty list of them. */
export const questionSourcesSchema = z.union([
  z.string().min(1),
  beirQuestionsSchema,
  z.array(z.union([z.string().min(1), beirQuestionsSchema])).min(1),
]);

/** A calendar date `YYYY-MM-DD` that exists. */
export const isoDateSchema = z.string().refine((s) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  try {
    Temporal.PlainDate.from(s, { overflow: "reject" });
    return true;
  } catch {
    return false;
  }
}, "must be a date written YYYY-MM-DD");

/** The `model:` section is declared beside the models (`lib/llm/model_config.ts`). */
export {
  type ModelConfig,
  type ModelOverride,
  modelOverrideSchema,
  modelSchema,
  priceSchema,
} from "../llm/model_config.ts";
/** `evaluation:` — how the run is carried out. */
export const evaluationSchema = z.strictObject({
  /** What date tools treat as today, fixed for the whole run. */
  tools_now: isoDateSchema.default("2026-01-01"),
  concurrency: z.int().min(1).max(64).default(4),
  repeats: z.int().min(1).max(100).default(1),
  /** Stop starting new questions once the run has spent this much. */
  max_cost_usd: z.number().positive().nullable().default(null),
  /** A question that takes longer is recorded as an error. */
  question_timeout_s: z.number().positive().max(86_400).default(300),
  /**
   * Cut-offs k of the retrieval metrics (recall@k, nDCG@k, ...), kept in the order given. The
   * default holds 10 and 100, the console's headline (nDCG@10 beside R@100).
   */
  retrieval_k: z.array(z.int().min(1).max(10_000)).min(1).max(20)
    .refine((ks) => new Set(ks).size === ks.length, "list each cut-off once")
    .default([1, 5, 10, 100]),
});

/** Default of `tools.max_output_chars` (see {@link toolRulesSchema}). */
export const DEFAULT_MAX_OUTPUT_CHARS = 12_000;

/** `tools:` — run-wide tool rules. */
export const toolRulesSchema = z.strictObject({
  /** Tools with side effects that may be used. */
  allow: z.array(z.string().min(1)).default([]),
  allow_network: z.boolean().default(false),
  timeout_s: z.number().positive().max(600).default(10),
  /**
   * Longest tool output a model reads, in characters. The default fits a default `search` call
   * (5 passages of the default 200 words) on ordinary Markdown pages: measured by
   * scripts/measure_search_output.ts, 4,000 cut 96 % of such calls and 12,000 none on this
   * repository's docs and 1.6 % on 118 npm package READMEs.
   */
  max_output_chars: z.int().min(100).max(1_000_000).default(DEFAULT_MAX_OUTPUT_CHARS),
  /** Packages and modules that contribute tools (`plugin_schema.ts`). */
  plugins: z.array(pluginSchema).max(50).default([]),
});

/**
 * A tool reference in a system's `tools:` list: a name, a mapping with the
 * name and options, or an entry of a typed source (`type: mcp`, see
 * `mcp_ref.ts`). Which kind it is, and its keys, are checked in the second
 * pass by the tool source that claims it (`check_tools.ts`).
 */
export const toolRefSchema = z.union([
  z.string().min(1),
  z.looseObject({ name: z.string().min(1) }),
  z.looseObject({ type: z.string().min(1) }),
]);

/** A system entry before its type is known: checked against the system's own schema later. */
export const systemEntrySchema = z.looseObject({
  type: z.string().min(1),
  name: nameSchema.optional(),
});

/**
 * A system's `retriever:`: the name of an entry of `retrievers:`, or a
 * retriever written inline (checked against `retrieverSchema` in the second
 * pass, so its errors carry their own positions and did-you-mean hints).
 */
export const retrieverRefSchema = z.union([
  z.string().min(1),
  z.record(z.string(), z.unknown()),
]);

/**
 * `retrievers:` — named retrievers, built once per run and shared by every
 * system naming them. Names are checked against {@link nameSchema} in the
 * second pass, which can say what is wrong with a key.
 */
export const retrieversSchema = z.record(z.string(), retrieverSchema);

/** The whole config file. */
export const configSchema = z.strictObject({
  name: nameSchema,
  description: z.string().optional(),
  /** One path, or a list whose documents, tables and questions are merged. */
  corpus: corpusSourcesSchema,
  questions: questionSourcesSchema,
  mock_script: pathsSchema.optional(),
  model: modelSchema.prefault({}),
  evaluation: evaluationSchema.prefault({}),
  tools: toolRulesSchema.prefault({}),
  retrievers: retrieversSchema.default({}),
  systems: z.array(systemEntrySchema).min(1, "list at least one system"),
});

/** The config after the first pass (systems not yet checked). */
export type RawConfig = z.output<typeof configSchema>;
/** `evaluation:` after defaults. */
export type EvaluationConfig = z.output<typeof evaluationSchema>;
/** `tools:` after defaults. */
export type ToolRules = z.output<typeof toolRulesSchema>;

/** Keys every system accepts, whatever its type. */
export const systemBaseSchema = z.strictObject({
  type: z.string(),
  name: nameSchema.optional(),
  description: z.string().optional(),
  /** The system's own model settings, merged over the run's `model:`. */
  model: modelOverrideSchema.optional(),
});

/** Keys of a system that retrieves (a `rag`-like system): the base keys plus `retriever:`. */
export const retrievingSystemBaseSchema = systemBaseSchema.extend({
  retriever: retrieverRefSchema.optional(),
});

/**
 * Keys every tool-using system accepts (limits per question, the tool list,
 * and the retriever its `search` tool uses).
 */
export const toolSystemBaseSchema = systemBaseSchema.extend({
  retriever: retrieverRefSchema.optional(),
  tools: z.array(toolRefSchema).default([]),
  /** Model turns before the agent must answer. */
  max_steps: z.int().min(1).max(100).default(8),
  max_tool_calls: z.int().min(0).max(1000).nullable().default(null),
  /** Per-question cost cap in US dollars. */
  max_cost_usd: z.number().positive().nullable().default(null),
  /** Per-question cap on input + output tokens. */
  max_tokens: z.int().positive().nullable().default(null),
});

/**
 * Custom tool reference: `{name, path: "./file.ts#export", side_effects, timeout_s, description,
 * memory_mb, load_timeout_s}`.
 */
export const customToolRefSchema = z.strictObject({
  name: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/, "use letters, digits and _"),
  path: z.string().regex(/^[^#]+#[A-Za-z_$][A-Za-z0-9_$]*$/, 'write it as "./file.ts#exportName"'),
  side_effects: z.enum(["none", "filesystem", "network"]).default("none"),
  timeout_s: z.number().positive().max(600).optional(),
  description: z.string().min(1).optional(),
  /** V8 heap cap of each of the tool's processes, in MB (default 1024). */
  memory_mb: z.int().min(32).max(65_536).optional(),
  /** How long the module may take to load and prepare, in seconds (default 60). */
  load_timeout_s: z.number().positive().max(3600).optional(),
});
