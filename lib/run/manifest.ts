/**
 * `run.json`, the run manifest: what produced a run directory, so a result
 * can be traced to its inputs and `--resume` can refuse to mix two runs.
 * It holds the ragbench version; a hash of the resolved config and the parts
 * that decide results (model, evaluation, tool rules, each system's entry,
 * prompts and tool schemas); each system's type, model and offered tools
 * (what `ragbench report` and `compare` read back); content hashes of the corpus, question, mock
 * script and custom tool files (a tool's entry module only, and only when
 * the run may read it); the question selection; the scorer version
 * and metric definitions; start and end times and the machine.
 *
 * Building ({@link buildManifest}) and comparing (`manifestDifferences`,
 * manifest_diff.ts) are pure; the command reads the files and hashes them (`digest.ts`).
 * Not compared, because a resumed run may change them without changing any
 * result: the version, times, machine, `evaluation.concurrency` and
 * `evaluation.max_cost_usd` (the run-wide cost cap decides which questions
 * run, never a result).
 *
 * @module
 */

import { z } from "zod";
import type { Config } from "../config/types.ts";
import { RagbenchError } from "../errors.ts";
import type { Pricing, ToolSpec } from "../llm/model.ts";
import { METRIC_DEFINITIONS, SCORER_VERSION } from "../score/definitions.ts";
import { hashValue, type PathDigest } from "./digest.ts";
import type { IndexingRecord } from "../retrieval/registry.ts";
import { type ShardBlock, shardBlockSchema } from "./shard.ts";

/** Name of the manifest inside a run directory. */
export const MANIFEST_FILE = "run.json";

/** Version of the manifest's own layout. */
export const MANIFEST_FORMAT = 1;

/** Evaluation keys a resumed run may change (they decide what runs, not results). */
const RESUMABLE_EVALUATION_KEYS: ReadonlySet<string> = new Set(["concurrency", "max_cost_usd"]);

/** A planned system as the manifest records it. */
export interface ManifestSystemInput {
  name: string;
  type: string;
  /** The validated config entry. */
  options: Record<string, unknown>;
  /** Fixed texts the system sends the model. */
  prompts: readonly string[];
  /** The tools as the model sees them. */
  toolSpecs: readonly ToolSpec[];
  /** Its model's id as the summaries show it; null when it calls no model. */
  model: string | null;
  /** Offered tools with network side effects. */
  networkTools: readonly string[];
}

/** Everything {@link buildManifest} records. */
export interface ManifestInputs {
  version: string;
  /** The loaded config, after `--systems`. */
  config: Config;
  mock: boolean;
  modelId: string;
  /** The price the run applies (the config's, or the price catalog's); null when unknown. */
  pricing: Pricing | null;
  /** The price of every model and embedding model of the run, and where each came from. */
  prices?: ManifestPrices;
  /** `--limit`, or null. */
  limit: number | null;
  /** Questions the run covers (after `--limit`). */
  questions: number;
  files: {
    corpus: PathDigest[];
    questions: PathDigest[];
    /** Empty when the run is not `--mock`. */
    mock_script: PathDigest[];
    /** Entry modules of custom tools. */
    custom_tools: PathDigest[];
  };
  systems: readonly ManifestSystemInput[];
  startedAt: string;
  machine: Machine;
  /** What embedding the passages cost this session (lib/retrieval/registry.ts). */
  indexing?: readonly IndexingRecord[];
  /** `--shard`: this shard and the layout of the whole run (lib/run/shard.ts). */
  shard?: ShardBlock;
}

/** The machine a run ran on. */
export interface Machine {
  os: string;
  arch: string;
  cpus: number | null;
  deno: string;
}

const digestSchema = z.object({
  path: z.string(),
  sha256: z.string().nullable(),
  files: z.number(),
});

const systemSchema = z.looseObject({
  name: z.string(),
  type: z.string(),
  config_sha256: z.string(),
  prompts_sha256: z.string(),
  tool_schemas_sha256: z.string(),
  tools: z.array(z.string()),
  /** Its model's id; null when it calls no model. Absent in run.json files of earlier versions. */
  model: z.string().nullable().optional(),
  /** Offered tools with network side effects. Absent in run.json files of earlier versions. */
  network_tools: z.array(z.string()).optional(),
});

const indexingSchema = z.looseObject({
  retriever: z.string(),
  passages: z.number(),
  embedder: z.string(),
  tokens: z.number(),
  cost_usd: z.number().nullable(),
  cached: z.number(),
});

const sessionSchema = z.looseObject({
  started_at: z.string(),
  ended_at: z.string().nullable(),
  forced_differences: z.array(z.string()),
  /** Absent in run.json files of earlier versions. */
  indexing: z.array(indexingSchema).optional(),
});

/** A price as `run.json` records it (`prices.models[]` / `prices.embeddings[]`). */
const priceSchema = z.looseObject({
  model: z.string(),
  base_url: z.string().nullable(),
  /** The systems that use it. */
  systems: z.array(z.string()),
  /** US dollars per million (input) tokens; null: unknown. */
  input_per_mtok: z.number().nullable(),
  /** Chat models only. */
  output_per_mtok: z.number().nullable().optional(),
  source: z.enum(["config", "catalog", "unknown"]),
  /** The catalog entry used (`provider/model`), when the price came from the catalog. */
  catalog_entry: z.string().nullable(),
});

/** `run.json`'s `prices`: informational (a resume does not compare it; `model` does). */
export const manifestPricesSchema = z.looseObject({
  /** The price catalog's package name@version (consulted or not). */
  catalog: z.string(),
  /** `--mock`: every dollar figure of the run is simulated (nothing was spent). */
  simulated: z.boolean(),
  models: z.array(priceSchema),
  embeddings: z.array(priceSchema),
});

/** A parsed `prices` of `run.json`. */
export type ManifestPrices = z.infer<typeof manifestPricesSchema>;

/** The schema of `run.json` (loose: a later version may add keys). */
export const manifestSchema = z.looseObject({
  format: z.literal(MANIFEST_FORMAT),
  ragbench_version: z.string(),
  name: z.string(),
  config_file: z.string(),
  config_sha256: z.string(),
  mock: z.boolean(),
  model_id: z.string(),
  model: z.record(z.string(), z.unknown()),
  evaluation: z.record(z.string(), z.unknown()),
  tools: z.record(z.string(), z.unknown()),
  selection: z.looseObject({ limit: z.number().nullable(), questions: z.number() }),
  inputs: z.looseObject({
    corpus: z.array(digestSchema),
    questions: z.array(digestSchema),
    mock_script: z.array(digestSchema),
    custom_tools: z.array(digestSchema),
  }),
  systems: z.array(systemSchema),
  scorer: z.looseObject({
    version: z.number(),
    metrics: z.record(z.string(), z.string()),
  }),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  sessions: z.array(sessionSchema),
  machine: z.looseObject({}),
  /** Absent in run.json files of earlier versions. */
  prices: manifestPricesSchema.optional(),
  /** Present when the run is one shard of a larger run (`--shard i/n`, lib/run/shard.ts). */
  shard: shardBlockSchema.optional(),
  /** A merged run (`ragbench merge`): the shards it was made of. */
  merged_from: z.array(z.looseObject({
    shard: z.string(),
    dir: z.string(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    jobs: z.number(),
  })).optional(),
  /** A merge with `--allow-partial` that lacked shards or jobs: what is missing. */
  partial: z.looseObject({
    missing_shards: z.array(z.string()),
    missing_jobs: z.number(),
    run_jobs: z.number(),
  }).optional(),
});

/** A parsed `run.json`. */
export type RunManifest = z.infer<typeof manifestSchema>;

/** The part of `evaluation` that decides results (hashed, and compared on `--resume`). */
export function comparedEvaluation(evaluation: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(evaluation).filter(([k]) => !RESUMABLE_EVALUATION_KEYS.has(k)),
  );
}

/**
 * The part of `model` that decides results: all of it but `rate_limit`, which
 * only paces the requests (a resumed run may change it, as concurrency).
 */
export function comparedModel(model: Record<string, unknown>): Record<string, unknown> {
  const { rate_limit: _, ...rest } = model;
  return rest;
}

/** The manifest of a run starting now (`ended_at` null until {@link finishManifest}). */
export function buildManifest(inputs: ManifestInputs): RunManifest {
  const { config } = inputs;
  const systems = inputs.systems.map((s) => ({
    name: s.name,
    type: s.type,
    config_sha256: hashValue(s.options),
    prompts_sha256: hashValue(s.prompts),
    tool_schemas_sha256: hashValue(s.toolSpecs),
    tools: s.toolSpecs.map((t) => t.name),
    model: s.model,
    network_tools: [...s.networkTools],
  }));
  const model = JSON.parse(
    JSON.stringify({ ...config.model, applied_price: inputs.pricing }),
  ) as Record<string, unknown>;
  const evaluation = { ...config.evaluation } as Record<string, unknown>;
  const tools = JSON.parse(JSON.stringify(config.tools)) as Record<string, unknown>;
  return {
    format: MANIFEST_FORMAT,
    ragbench_version: inputs.version,
    name: config.name,
    config_file: config.file,
    config_sha256: hashValue({
      name: config.name,
      description: config.description ?? null,
      model: comparedModel(model),
      evaluation: comparedEvaluation(evaluation),
      tools,
      systems: systems.map((s) => [s.name, s.config_sha256]),
    }),
    mock: inputs.mock,
    model_id: inputs.modelId,
    model,
    evaluation,
    tools,
    selection: { limit: inputs.limit, questions: inputs.questions },
    inputs: inputs.files,
    systems,
    scorer: { version: SCORER_VERSION, metrics: { ...METRIC_DEFINITIONS } },
    started_at: inputs.startedAt,
    ended_at: null,
    sessions: [{
      started_at: inputs.startedAt,
      ended_at: null,
      forced_differences: [],
      indexing: (inputs.indexing ?? []).map((r) => ({ ...r })),
    }],
    machine: { ...inputs.machine },
    ...(inputs.prices === undefined
      ? {}
      : { prices: JSON.parse(JSON.stringify(inputs.prices)) as ManifestPrices }),
    ...(inputs.shard === undefined ? {} : { shard: inputs.shard }),
  };
}

/**
 * The manifest a resumed run writes: the current inputs, the first run's
 * start, and this session added to the history (with the differences that
 * `--force` overrode).
 */
export function resumedManifest(
  previous: RunManifest,
  current: RunManifest,
  forcedDifferences: readonly string[],
): RunManifest {
  const session = current.sessions[current.sessions.length - 1];
  return {
    ...current,
    started_at: previous.started_at,
    sessions: [...previous.sessions, { ...session, forced_differences: [...forcedDifferences] }],
  };
}

/** The manifest with this session's end time. */
export function finishManifest(manifest: RunManifest, endedAt: string): RunManifest {
  const sessions = manifest.sessions.map((s, i) =>
    i === manifest.sessions.length - 1 ? { ...s, ended_at: endedAt } : s
  );
  return { ...manifest, ended_at: endedAt, sessions };
}

/**
 * Parses `run.json` text.
 *
 * @throws {RagbenchError} code "data" naming the file when it is not a manifest.
 */
export function parseManifest(text: string, path: string): RunManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RagbenchError(
      "data",
      `"${path}" is not valid JSON, so it is not a ragbench run.json.`,
    );
  }
  const parsed = manifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RagbenchError(
      "data",
      `"${path}" is not a ragbench run.json of format ${MANIFEST_FORMAT} (${
        issue.path.join(".") || "top level"
      }: ${issue.message}).`,
    );
  }
  return parsed.data;
}

/** The machine this process runs on. */
export function currentMachine(): Machine {
  return {
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpus: typeof navigator !== "undefined" ? navigator.hardwareConcurrency ?? null : null,
    deno: Deno.version.deno,
  };
}
