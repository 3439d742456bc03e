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
 * (see `mock_code.ts`); other systems ignore them, and a code agent with no
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

import { z } from "zod";
import { ConfigError, type ConfigIssue, type SourcePosition } from "../errors.ts";
import type { JsonValue } from "../types.ts";
import { readTextFile } from "../util/fs.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { restoreProtoKeys, shieldProtoKeys } from "../util/proto_keys.ts";
import {
  describePath,
  issuesFromZod,
  parseYaml,
  type ValuePath,
  type YamlSource,
} from "../util/yaml_source.ts";

const jsonObject = z.record(z.string(), z.json());

/** The keys a turn may have; the first five say what kind of turn it is. */
const TURN_KEYS = [
  "call",
  "answer",
  "recall",
  "code",
  "raw",
  "args",
  "without",
  "from_memory",
  "instead_of",
] as const;
const TURN_SHAPES = 'a turn is {call: TOOL, args: {...}}, {answer: "..."}, {recall: "..."}, ' +
  '{code: "..."} or {raw: "..."}';

/** One schema per kind of turn, so an unknown key gets a did-you-mean among that kind's keys. */
const turnSchemas = {
  call: z.strictObject({
    call: z.string().min(1),
    args: jsonObject.default({}),
    instead_of: z.string().min(1).optional(),
  }),
  answer: z.strictObject({
    answer: z.string(),
    without: z.record(z.string().min(1), z.string()).optional(),
    from_memory: z.boolean().optional(),
  }),
  recall: z.strictObject({ recall: z.string() }),
  code: z.strictObject({ code: z.string() }),
  raw: z.strictObject({ raw: z.string() }),
};

type Turn =
  | z.infer<typeof turnSchemas.call>
  | z.infer<typeof turnSchemas.answer>
  | z.infer<typeof turnSchemas.recall>
  | z.infer<typeof turnSchemas.code>
  | z.infer<typeof turnSchemas.raw>;

/** Fragment -> turns; each value is checked by {@link fragmentSchema} (a union would hide the detail). */
const scriptSchema = z.record(
  z.string().trim().min(1, "a fragment must not be empty"),
  z.unknown(),
);

const turnListSchema = z.array(z.unknown()).min(1, "list at least one turn");

/** Turns per model name (`default` for every other model). */
const byModelSchema = z.strictObject({
  models: z.record(z.string().trim().min(1, "a model name must not be empty"), turnListSchema)
    .refine((m) => Object.keys(m).length > 0, "list the turns of at least one model"),
});

/** A fragment's value: a list of turns, or turns per model. */
function fragmentSchema(value: unknown) {
  return value === null || typeof value !== "object" || Array.isArray(value)
    ? turnListSchema
    : byModelSchema;
}

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
 * Reads and validates a mock script.
 *
 * @throws {ConfigError} with the line of each problem.
 */
export async function loadMockScript(path: string): Promise<MockScript> {
  return parseMockScript(await readTextFile(path, "mock script"), path);
}

/** Reads several mock scripts and merges their entries (a fragment given twice is an error). */
export async function loadMockScripts(paths: readonly string[]): Promise<MockScript> {
  const entries: MockEntry[] = [];
  const owner = new Map<string, string>();
  for (const path of paths) {
    for (const entry of (await loadMockScript(path)).entries) {
      const key = entry.fragment.toLowerCase();
      const other = owner.get(key);
      // One file may hold a fragment several times: once per model it is keyed by.
      if (other !== undefined && other !== path) {
        throw new ConfigError("mock script", [{
          position: { file: path },
          message: `fragment "${entry.fragment}" is also scripted in "${other}"`,
        }]);
      }
      owner.set(key, path);
      entries.push(entry);
    }
  }
  return { entries };
}

/** Validates mock-script text. */
export function parseMockScript(text: string, file: string): MockScript {
  const { source, issues } = parseYaml(text, file);
  if (issues.length) throw new ConfigError("mock script", issues);
  const parsed = scriptSchema.safeParse(shieldProtoKeys(source.value ?? {}));
  if (!parsed.success) {
    throw new ConfigError("mock script", issuesFromZod(source, parsed.error, scriptSchema));
  }
  const problems: ConfigIssue[] = [];
  const entries: MockEntry[] = [];
  for (const [fragment, value] of Object.entries(restoreProtoKeys(parsed.data))) {
    const schema = fragmentSchema(value);
    const checked = schema.safeParse(shieldProtoKeys(value));
    if (!checked.success) {
      problems.push(...issuesFromZod(source, checked.error, schema, [fragment], value));
      continue;
    }
    const shape = restoreProtoKeys(checked.data);
    const variants: Array<[string | null, unknown[], ValuePath]> = Array.isArray(shape)
      ? [[null, shape, [fragment]]]
      : Object.entries(shape.models).map(([name, turns]) => [
        name === DEFAULT_MODEL_KEY ? null : name,
        turns,
        [fragment, "models", name],
      ]);
    for (const [model, turns, base] of variants) {
      entries.push(parseEntry(fragment, model, turns, { base, source, problems }));
    }
  }
  if (problems.length) throw new ConfigError("mock script", problems);
  return { entries };
}

/** One entry from its list of turns; problems are added to `problems`. */
function parseEntry(
  fragment: string,
  model: string | null,
  turns: unknown[],
  at: { base: ValuePath; source: YamlSource; problems: ConfigIssue[] },
): MockEntry {
  const { base, source, problems } = at;
  const entry: MockEntry = {
    fragment,
    model,
    calls: [],
    actions: [],
    answer: null,
    without: new Map(),
    fromMemory: false,
    recall: null,
    locate: (path, options) => source.positionOf([...base, ...path], options),
    code: [],
  };
  turns.forEach((raw, i) => {
    const turn = parseTurn(raw, [...base, i], source, problems);
    if (turn === undefined) return;
    const here = () => source.positionOf([...base, i]);
    if ("call" in turn) {
      if (entry.answer !== null) {
        problems.push({
          position: here(),
          message: `in "${fragment}": a call after the answer is never made`,
        });
      }
      const call: MockCall = {
        tool: turn.call,
        args: turn.args as Record<string, JsonValue>,
        turn: i,
        ...(turn.instead_of === undefined ? {} : { instead_of: turn.instead_of }),
      };
      entry.calls.push(call);
      entry.actions.push({ kind: "call", call });
    } else if ("raw" in turn) {
      if (entry.answer !== null) {
        problems.push({
          position: here(),
          message: `in "${fragment}": a raw reply after the answer is never sent`,
        });
      }
      entry.actions.push({ kind: "raw", text: turn.raw });
    } else if ("answer" in turn) {
      if (entry.answer !== null) {
        problems.push({ position: here(), message: `in "${fragment}": more than one answer turn` });
      }
      entry.answer = turn.answer;
      entry.answerTurn = i;
      entry.without = new Map(Object.entries(turn.without ?? {}));
      entry.fromMemory = turn.from_memory ?? false;
    } else if ("code" in turn) {
      entry.code.push(turn.code);
    } else {
      if (entry.recall !== null) {
        problems.push({ position: here(), message: `in "${fragment}": more than one recall turn` });
      }
      entry.recall = turn.recall;
    }
  });
  return entry;
}

/**
 * One turn, checked against the schema of its kind (told by its `call`,
 * `answer`, `recall`, `code` or `raw` key); problems are added to `problems`.
 */
function parseTurn(
  raw: unknown,
  path: ValuePath,
  source: YamlSource,
  problems: ConfigIssue[],
): Turn | undefined {
  const where = describePath(path);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    problems.push({ position: source.positionOf(path), message: `${where}: ${TURN_SHAPES}` });
    return undefined;
  }
  const kind = (["call", "answer", "recall", "code", "raw"] as const).find((k) =>
    Object.hasOwn(raw, k)
  );
  if (kind === undefined) {
    const keys = Object.keys(raw);
    if (keys.length === 0) {
      problems.push({ position: source.positionOf(path), message: `${where}: ${TURN_SHAPES}` });
    }
    for (const key of keys) {
      problems.push({
        position: source.positionOf([...path, key], { key: true }),
        message: `unknown key "${key}" in ${where}; ${TURN_SHAPES}`,
        hint: suggestion(key, TURN_KEYS),
      });
    }
    return undefined;
  }
  const schema = turnSchemas[kind];
  const checked = schema.safeParse(shieldProtoKeys(raw));
  if (!checked.success) {
    problems.push(...issuesFromZod(source, checked.error, schema, path, raw));
    return undefined;
  }
  return restoreProtoKeys(checked.data);
}

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
