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
 * `call` turns ask for a tool; `answer` is the final answer; `recall` is
 * what the model answers when it is offered no tools and has seen no tool
 * result (a closed-book system). An answer may say what the model answers
 * instead when a tool it would have called is not offered —
 * `{answer: "26.32%", without: {calculator: "About 26%."}}` — so a mock run
 * shows what a tool buys. A question matches the longest fragment it
 * contains, compared ignoring case.
 *
 * `code` turns are the programs a code agent's model writes, one a reply
 * (see `mock_code.ts`); other systems ignore them, and a code agent with no
 * `code` turns runs a program made of the entry's calls and answer.
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

/** The keys a turn may have; the first four say what kind of turn it is. */
const TURN_KEYS = ["call", "answer", "recall", "code", "args", "without"] as const;
const TURN_SHAPES =
  'a turn is {call: TOOL, args: {...}}, {answer: "..."}, {recall: "..."} or {code: "..."}';

/** One schema per kind of turn, so an unknown key gets a did-you-mean among that kind's keys. */
const turnSchemas = {
  call: z.strictObject({ call: z.string().min(1), args: jsonObject.default({}) }),
  answer: z.strictObject({
    answer: z.string(),
    without: z.record(z.string().min(1), z.string()).optional(),
  }),
  recall: z.strictObject({ recall: z.string() }),
  code: z.strictObject({ code: z.string() }),
};

type Turn =
  | z.infer<typeof turnSchemas.call>
  | z.infer<typeof turnSchemas.answer>
  | z.infer<typeof turnSchemas.recall>
  | z.infer<typeof turnSchemas.code>;

const scriptSchema = z.record(
  z.string().trim().min(1, "a fragment must not be empty"),
  z.array(z.unknown()).min(1, "list at least one turn"),
);

/** One tool call the mock makes. */
export interface MockCall {
  tool: string;
  args: Record<string, JsonValue>;
  /** Index of its turn in the entry. */
  turn: number;
}

/** What the mock does on the questions that contain `fragment`. */
export interface MockEntry {
  fragment: string;
  /** Tool calls in order, before the answer. */
  calls: MockCall[];
  answer: string | null;
  /** Answers given instead of `answer` when the named tool was not offered. */
  without: ReadonlyMap<string, string>;
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
  entries: MockEntry[];
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
      if (other !== undefined) {
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
  for (const [fragment, turns] of Object.entries(restoreProtoKeys(parsed.data))) {
    const entry: MockEntry = {
      fragment,
      calls: [],
      answer: null,
      without: new Map(),
      recall: null,
      locate: (path, options) => source.positionOf([fragment, ...path], options),
      code: [],
    };
    turns.forEach((raw, i) => {
      const turn = parseTurn(raw, [fragment, i], source, problems);
      if (turn === undefined) return;
      const at = () => source.positionOf([fragment, i]);
      if ("call" in turn) {
        if (entry.answer !== null) {
          problems.push({
            position: at(),
            message: `in "${fragment}": a call after the answer is never made`,
          });
        }
        entry.calls.push({
          tool: turn.call,
          args: turn.args as Record<string, JsonValue>,
          turn: i,
        });
      } else if ("answer" in turn) {
        if (entry.answer !== null) {
          problems.push({ position: at(), message: `in "${fragment}": more than one answer turn` });
        }
        entry.answer = turn.answer;
        entry.answerTurn = i;
        entry.without = new Map(Object.entries(turn.without ?? {}));
      } else if ("code" in turn) {
        entry.code.push(turn.code);
      } else {
        if (entry.recall !== null) {
          problems.push({ position: at(), message: `in "${fragment}": more than one recall turn` });
        }
        entry.recall = turn.recall;
      }
    });
    entries.push(entry);
  }
  if (problems.length) throw new ConfigError("mock script", problems);
  return { entries };
}

/**
 * One turn, checked against the schema of its kind (told by its `call`,
 * `answer`, `recall` or `code` key); problems are added to `problems`.
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
  const kind = (["call", "answer", "recall", "code"] as const).find((k) => Object.hasOwn(raw, k));
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

/** The entry for a question: the longest fragment it contains (ignoring case), else undefined. */
export function entryFor(script: MockScript, question: string): MockEntry | undefined {
  const text = question.toLowerCase();
  let best: MockEntry | undefined;
  for (const entry of script.entries) {
    if (!text.includes(entry.fragment.toLowerCase())) continue;
    if (!best || entry.fragment.length > best.fragment.length) best = entry;
  }
  return best;
}
