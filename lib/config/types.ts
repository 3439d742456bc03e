/**
 * The config as loading resolves it (every path absolute, every default
 * applied, each system checked against its type), and the registries it is
 * checked against. The raw shapes are the zod schemas of `schema.ts`; these
 * are what the rest of ragbench reads.
 *
 * @module
 */

import type { z } from "zod";
import type { CorpusSource } from "../data/corpus.ts";
import type { QuestionSource } from "../data/questions.ts";
import type { PromptSet } from "../prompts/prompt_set.ts";
import type { RetrieverConfig } from "./retriever_schema.ts";
import type { EvaluationConfig, ModelConfig, RawConfig, ToolRules } from "./schema.ts";
import type { ToolInfo, ToolRef, ToolRefChecker } from "./tool_check.ts";

export type { ToolInfo, ToolRef } from "./tool_check.ts";

/** What the loader needs to know about a system type. */
export interface SystemSchemaInfo {
  /** Strict schema of the whole system entry (type, name, options, tools). */
  options: z.ZodObject;
  /** Whether the entry may have a `tools:` list. */
  acceptsTools: boolean;
  /** Why it takes no `tools:` list, said in the error. */
  noToolsReason?: string;
  /** Its configurable prompts (`prompts:`), checked after the schema. */
  prompts?: PromptSet;
}

/** The registries a config is checked against (injected, so this layer imports no system or tool). */
export interface Registries {
  systems: ReadonlyMap<string, SystemSchemaInfo>;
  /** The built-in tools. */
  tools: ReadonlyMap<string, ToolInfo>;
  /** Each kind of tool reference, in the order they are asked to claim an entry. */
  toolSources: readonly ToolRefChecker[];
}

/** Name of the retriever a searching system uses when it names none. */
export const DEFAULT_RETRIEVER = "default";

/**
 * The retriever a system uses, after defaults. `key` identifies one build in
 * a run: systems with the same key share one index and one set of
 * embeddings.
 */
export interface RetrieverChoice {
  /** `named:<name>` for an entry of `retrievers:` (or the default), `inline:<system>` otherwise. */
  key: string;
  /** The `retrievers:` name, or the system's name for an inline retriever. */
  name: string;
  config: RetrieverConfig;
}

/** A system of the run, validated against its type's schema. */
export interface SystemConfig {
  type: string;
  name: string;
  /** The validated entry, defaults applied (includes `type` and `name`). */
  options: Record<string, unknown>;
  /** Tools the system offers besides any it always has; empty for tool-less systems. */
  tools: ToolRef[];
  /** The retriever of a system whose type takes `retriever:`; null for the others. */
  retriever: RetrieverChoice | null;
  /** Its model: the system's `model:` merged over the run's. */
  model: ModelConfig;
  /**
   * The file each prompt set from one was read from (absolute), by slot; the
   * text itself is in `options.prompts`. Absent when none is.
   */
  prompt_files?: Record<string, string>;
}

/** A loaded, validated config with every path absolute. */
export interface Config {
  /** The config file's absolute path. */
  file: string;
  name: string;
  description?: string;
  /** Corpus sources (a file or folder path, or a BEIR folder), merged in order. */
  corpus: CorpusSource[];
  /** Question sets (a file path, or a BEIR folder and split), concatenated in order. */
  questions: QuestionSource[];
  /** Mock-script paths (empty when none), merged in order. */
  mock_script: string[];
  model: ModelConfig;
  evaluation: EvaluationConfig;
  tools: ToolRules;
  /** `retrievers:` after defaults, by name. */
  retrievers: Record<string, RetrieverConfig>;
  systems: SystemConfig[];
}

/** What the systems are checked against; `model` is absent on the error path (a default is used). */
export type SystemsPart =
  & Pick<RawConfig, "systems" | "tools" | "retrievers">
  & Partial<Pick<RawConfig, "model">>;
