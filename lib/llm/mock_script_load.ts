/**
 * Reading mock scripts (the format is described in mock_script.ts): YAML
 * with positions, each turn checked against the schema of its kind, every
 * problem reported with its line and a did-you-mean hint, several files
 * merged (a fragment scripted in two files is an error).
 *
 * @module
 */

import { z } from "zod";
import { ConfigError, type ConfigIssue } from "../errors.ts";
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

import {
  DEFAULT_MODEL_KEY,
  type MockCall,
  type MockEntry,
  type MockScript,
} from "./mock_script.ts";

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
