/**
 * The mock script: what the scripted mock model does for each question.
 *
 * A YAML mapping from a fragment of a question's text to the list of turns
 * the model takes on it:
 *
 * ```yaml
 * "tower that inspired Tokyo Tower":
 *   - {call: search, args: {query: Tokyo Tower design inspiration}}
 *   - {call: search, args: {query: Eiffel Tower height}}
 *   - {answer: "The Eiffel Tower, which inspired it, is 330 metres tall."}
 *   - {recall: "About 333 metres."}
 * ```
 *
 * `call` turns ask for a tool (`instead_of: search` makes the call only when
 * `search` is not offered: a fallback for an index-free system); `raw` is a
 * reply sent verbatim as the model's text (to script a malformed react_json
 * action); `answer` is the final answer; `recall` is
 * what the model answers when it is offered no tools and has seen no tool
 * result (a closed-book system). An answer may say what the model answers
 * instead when a tool it would have called is not offered —
 * `{answer: "26.32%", without: {calculator: "About 26%."}}` — so a mock run
 * shows what a tool buys. A question matches the longest fragment it
 * contains, compared ignoring case.
 *
 * A mock run measures retrieval: for a question with evidence, the answer
 * (and a `without` answer) is given only when an evidence document was in
 * the context the model was shown (the `rag` prompt's passages or a tool
 * output: `shown_documents.ts`); otherwise the model answers as the default
 * policy does with what it was shown. `from_memory: true` on the answer turn
 * opts out: the model knows it whatever it retrieved. `recall` is the
 * closed-book answer by definition and is never held back.
 *
 * `code` turns are the programs a code agent's model writes, one a reply
 * (see `systems/code_agent_mock.ts`); other systems ignore them, and a code agent with no
 * `code` turns runs a program made of the entry's calls and answer.
 *
 * A fragment may hold turns per model instead of one list:
 * `{models: {gpt-4o: [turns], default: [turns]}}`; a model's own turns beat
 * `default`, and a model with neither gets the default policy. The model
 * names are checked against the config when the run loads
 * (`mock_script_checks.ts`).
 *
 * @module
 */

import type { SourcePosition } from "../errors.ts";
import type { JsonValue } from "../types.ts";
import type { ValuePath } from "../util/yaml_source.ts";

/** The `models:` key that stands for every model not named beside it. */
export const DEFAULT_MODEL_KEY = "default";

/** One tool call the mock makes. */
export interface MockCall {
  tool: string;
  args: Record<string, JsonValue>;
  /** Index of its turn in the entry. */
  turn: number;
  /** Made only when this tool is not offered (a fallback for it), e.g. corpus_grep instead of search. */
  instead_of?: string;
}

/** A turn before the answer: a tool call, or a reply sent verbatim (`raw`). */
export type MockAction = { kind: "call"; call: MockCall } | { kind: "raw"; text: string };

/** What the mock does on the questions that contain `fragment`. */
export interface MockEntry {
  fragment: string;
  /** The model name these turns are for; null for every model (a plain list, or `default`). */
  model: string | null;
  /** Tool calls in order, before the answer. */
  calls: MockCall[];
  /** Tool calls and raw replies in script order, before the answer. */
  actions: MockAction[];
  answer: string | null;
  /** Answers given instead of `answer` when the named tool was not offered. */
  without: ReadonlyMap<string, string>;
  /**
   * The answer (and its `without` answers) comes from the model's memory: it
   * is given whatever the model was shown. Otherwise, for a question with
   * evidence, it is given only once an evidence document was in the
   * model's context (see {@link MockScript.evidence}).
   */
  fromMemory: boolean;
  /** Index of the answer turn, when there is one. */
  answerTurn?: number;
  recall: string | null;
  /**
   * Where a part of the entry stands in its file, for load-time checks: `[]`
   * is the fragment (its key), `[turn, ...]` a turn or a value inside it.
   */
  locate?: (path: ValuePath, options?: { key?: boolean }) => SourcePosition;
  /** Programs a code agent sends, in order (`code` turns). */
  code: string[];
}

/** A parsed mock script. */
export interface MockScript {
  /** Never changed once read (`entryFor` keeps what it found per script). */
  readonly entries: readonly MockEntry[];
  /**
   * The evidence document ids of each question, by its text (the run's
   * questions, attached by {@link withEvidence}; questions sharing a text
   * share their evidence). A scripted answer to a question with evidence is
   * given only when the model was shown one of them; absent: every scripted
   * answer is given as written.
   */
  readonly evidence?: ReadonlyMap<string, readonly string[]>;
}

/** `script` with the evidence of `questions` attached (see {@link MockScript.evidence}). */
export function withEvidence(
  script: MockScript,
  questions: ReadonlyArray<{ question: string; evidence?: ReadonlyArray<{ id: string }> }>,
): MockScript {
  const evidence = new Map<string, string[]>();
  for (const q of questions) {
    const ids = q.evidence?.map((e) => e.id) ?? [];
    if (ids.length === 0) continue;
    const known = evidence.get(q.question) ?? [];
    evidence.set(q.question, [...new Set([...known, ...ids])]);
  }
  return { entries: script.entries, evidence };
}

/** An empty script: every question gets the default policy. */
export const EMPTY_SCRIPT: MockScript = { entries: [] };

/**
 * The entry for a question and model: among the fragments the question
 * contains (ignoring case) that have turns for `model` (its own, or the
 * `default` ones), the longest; its own turns beat `default`. Else undefined.
 */
export function entryFor(
  script: MockScript,
  question: string,
  model: string | null = null,
): MockEntry | undefined {
  // Every system asks for every question, turn after turn: each answer is worked out once.
  let lookup = lookups.get(script);
  if (lookup === undefined) {
    lookup = {
      fragments: script.entries.map((entry) => entry.fragment.toLowerCase()),
      found: new Map(),
    };
    lookups.set(script, lookup);
  }
  let found = lookup.found.get(model);
  if (found === undefined) lookup.found.set(model, found = new Map());
  // Keyed by the question's own string: no copy of it is made.
  if (found.has(question)) return found.get(question);
  const text = question.toLowerCase();
  let best: MockEntry | undefined;
  for (const [i, entry] of script.entries.entries()) {
    if (entry.model !== null && entry.model !== model) continue;
    if (!text.includes(lookup.fragments[i])) continue;
    if (
      !best || entry.fragment.length > best.fragment.length ||
      (entry.fragment.length === best.fragment.length && entry.model !== null)
    ) best = entry;
  }
  found.set(question, best);
  return best;
}

/** Per script: its fragments in lower case, and the entry found for each model and question. */
const lookups = new WeakMap<
  MockScript,
  { fragments: string[]; found: Map<string | null, Map<string, MockEntry | undefined>> }
>();
