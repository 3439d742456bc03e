/**
 * The composition root of a run: loads the config against the registries,
 * then the corpus, the questions and the mock script, builds the model and
 * each system's toolbox. `validate` stops after loading; `run` goes on.
 *
 * @module
 */

import { loadConfig } from "../config/load.ts";
import type { Config, Registries } from "../config/types.ts";
import { loadCorpora, type SkippedFile } from "../data/corpus.ts";
import type { Question } from "../data/question_schema.ts";
import { loadQuestionSets } from "../data/questions.ts";
import { combineConfigErrors, ConfigError, UsageError } from "../errors.ts";
import { EMPTY_SCRIPT, type MockScript, withEvidence } from "../llm/mock_script.ts";
import { loadMockScripts } from "../llm/mock_script_load.ts";
import { checkMockScript } from "../llm/mock_script_checks.ts";
import type { Corpus } from "../types.ts";
import { suggestion } from "../util/did_you_mean.ts";
import type { ProgressSink } from "../util/load_progress.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { depthWarnings } from "./depth_warnings.ts";
import { BUILTIN_TOOLS } from "../../tools/registry.ts";
import { offeredNamesOf, TOOL_SOURCES } from "./tool_sources/registry.ts";

/** The registries every config is checked against. */
export const REGISTRIES: Registries = {
  systems: SYSTEMS,
  tools: BUILTIN_TOOLS,
  toolSources: [...TOOL_SOURCES.values()],
};

/** Everything a run reads, loaded and checked. */
export interface LoadedRun {
  config: Config;
  corpus: Corpus;
  /** Corpus files and links left out, with the reason. */
  skipped: SkippedFile[];
  /** Notes about the data that do not stop the run, for the run log. */
  warnings: string[];
  questions: Question[];
  /** The mock script (empty when the config names none). */
  script: MockScript;
}

/** What to narrow a run to, from the command line. */
export interface RunSelection {
  /** System names to keep (`--systems a,b`). */
  systems?: string[];
  /** Keep the first N questions (`--limit N`). */
  limit?: number;
  /** Load the mock script (only `--mock` runs use it). */
  mock: boolean;
}

/**
 * Loads the config and every file it names, and applies the selection.
 *
 * @throws {ConfigError} / {RagbenchError} naming the file and line at fault.
 * @throws {UsageError} when `--systems` names a system the config lacks.
 */
export async function loadRun(
  configPath: string,
  selection: RunSelection,
  options: LoadOptions = {},
): Promise<LoadedRun> {
  return await loadData(await loadConfig(configPath, REGISTRIES), selection, options);
}

/** Options of {@link loadRun} and {@link loadData}. */
export interface LoadOptions {
  /** Progress lines of loads that take over a second. */
  progress?: ProgressSink;
  /** Stops a long corpus load (reading PDFs). */
  signal?: AbortSignal;
}

/** The second half of {@link loadRun}: everything the loaded config names. */
export async function loadData(
  config: Config,
  selection: RunSelection,
  options: LoadOptions = {},
): Promise<LoadedRun> {
  const toolNames = [
    ...BUILTIN_TOOLS.keys(),
    ...new Set([
      ...config.systems.flatMap((s) => s.tools.flatMap(offeredNamesOf)),
      // A plug-in's tools are in the registry whether or not a system offers them.
      ...config.tools.plugins.flatMap((p) => p.tools),
    ]),
  ];
  const modelNames = [...new Set(config.systems.map((s) => s.model.name))];
  if (selection.systems) config.systems = selectSystems(config, selection.systems);
  // A corpus with problems does not stop the questions from being checked: a BEIR folder's
  // problems (corpus, queries, qrels) are all reported in one pass.
  const corpusLoad = await loadCorpora(config.corpus, {
    progress: options.progress,
    ...(options.signal ? { pdf: { signal: options.signal } } : {}),
  }).then(
    (loaded) => ({ loaded, failure: null }),
    (error) => {
      if (!(error instanceof ConfigError)) throw error;
      return { loaded: null, failure: error };
    },
  );
  const warnings = corpusLoad.loaded?.warnings ?? [];
  // The ids of a failed corpus are known only when it is the config's one corpus.
  const documentIds = corpusLoad.loaded
    ? new Set(corpusLoad.loaded.corpus.documents.map((d) => d.id))
    : config.corpus.length === 1
    ? corpusLoad.failure.readIds
    : undefined;
  let questions: Question[];
  try {
    questions = await loadQuestionSets(config.questions, {
      toolNames,
      documentIds,
      onWarning: (message) => warnings.push(message),
      progress: options.progress,
    });
  } catch (error) {
    if (!corpusLoad.failure || !(error instanceof ConfigError)) throw error;
    throw combineConfigErrors([corpusLoad.failure, error]);
  }
  if (corpusLoad.failure) throw corpusLoad.failure;
  const { corpus, skipped } = corpusLoad.loaded;
  const script = selection.mock && config.mock_script.length
    ? await loadMockScripts(config.mock_script)
    : EMPTY_SCRIPT;
  // Against every question, before --limit: a fragment of a later question is not a typo.
  const problems = checkMockScript(script, { toolNames, questions, models: modelNames });
  if (problems.length) throw new ConfigError("mock script", problems);
  if (selection.limit !== undefined) questions = questions.slice(0, selection.limit);
  warnings.push(...depthWarnings(config, SYSTEMS));
  // The mock gives a scripted answer only once the model was shown the question's evidence.
  const scored = script.entries.length ? withEvidence(script, questions) : script;
  return { config, corpus, skipped, warnings, questions, script: scored };
}

function selectSystems(config: Config, names: string[]) {
  const known = config.systems.map((s) => s.name);
  for (const name of names) {
    if (!known.includes(name)) {
      throw new UsageError(
        `--systems names "${name}", which the config does not have — ${suggestion(name, known)}`,
      );
    }
  }
  return config.systems.filter((s) => names.includes(s.name));
}
