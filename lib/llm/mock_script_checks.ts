/**
 * Checks of a loaded mock script against the run it is used in, made when the
 * run loads (so `validate` reports them): every tool a call or a `without:`
 * names must be a tool of the config, every fragment must match some
 * question, every model a fragment is keyed by must be some system's model,
 * and every `instead_of` must name a tool of the config (a misspelt one would
 * make its fallback call on every system). Without them a misspelt tool name was silently skipped in a run
 * and a misspelt fragment silently left its question to the default policy.
 *
 * Each check is one function over one entry (or the script) returning its
 * problems, so a new kind of entry or a new rule adds one function to
 * {@link MOCK_CHECKS}.
 *
 * @module
 */

import { type ConfigIssue, IssueList } from "../errors.ts";
import { closestMatch, suggestion } from "../util/did_you_mean.ts";
import { DEFAULT_MODEL_KEY, type MockEntry, type MockScript } from "./mock_script.ts";

/** What a mock script is checked against. */
export interface MockCheckContext {
  /** Every tool a system of the config can offer (built-ins and custom tools). */
  toolNames: readonly string[];
  /** The text of every question of the config (before `--limit`). */
  questions: readonly { id: string; question: string }[];
  /** The `name` of every system's model; absent, model keys are not checked. */
  models?: readonly string[];
  /**
   * False to leave out the hints that cost (a did-you-mean over every
   * question's text): {@link checkMockScript} sets it once it holds every
   * issue it will list.
   */
  hints?: boolean;
}

/** One check of one entry: its problems (none when it is sound). */
export type MockEntryCheck = (entry: MockEntry, context: MockCheckContext) => ConfigIssue[];

/** The checks every entry goes through, in order. */
export const MOCK_CHECKS: readonly MockEntryCheck[] = [
  checkCalledTools,
  checkWithoutTools,
  checkFragmentMatches,
  checkModelName,
  checkInsteadOf,
];

/**
 * The problems of `script` in `context`, entry by entry, in file order: the
 * first 20, then one that counts the rest (a script
 * whose thousands of entries all miss, say for the wrong question file, is
 * reported in moments, not after a did-you-mean for each).
 */
export function checkMockScript(script: MockScript, context: MockCheckContext): ConfigIssue[] {
  // A fragment keyed by several models is several entries: say a problem of the fragment once.
  const seen = new Set<string>();
  const issues = new IssueList("mock script");
  const counting = { ...context, hints: false };
  for (const entry of script.entries) {
    for (const check of MOCK_CHECKS) {
      for (const issue of check(entry, issues.full ? counting : context)) {
        const key = `${issue.position.file}\0${issue.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        issues.add(issue);
      }
    }
  }
  return issues.listed();
}

/** Turns keyed by a model must name the model of some system. */
export function checkModelName(entry: MockEntry, context: MockCheckContext): ConfigIssue[] {
  if (entry.model === null || !context.models || context.models.includes(entry.model)) return [];
  return [{
    position: position(entry, [], true),
    message: `in "${entry.fragment}": no system of the config uses model "${entry.model}"`,
    hint: suggestion(entry.model, [...context.models, DEFAULT_MODEL_KEY]),
  }];
}

/** An `instead_of:` must name a tool of the config. */
export function checkInsteadOf(entry: MockEntry, context: MockCheckContext): ConfigIssue[] {
  return entry.calls
    .filter((call) => call.instead_of !== undefined && !context.toolNames.includes(call.instead_of))
    .map((call) => ({
      position: position(entry, [call.turn, "instead_of"]),
      message:
        `in "${entry.fragment}": instead_of names "${call.instead_of}", which is not a tool of this config`,
      hint: suggestion(call.instead_of!, context.toolNames),
    }));
}

/** A `call:` must name a tool of the config. */
export function checkCalledTools(entry: MockEntry, context: MockCheckContext): ConfigIssue[] {
  return entry.calls
    .filter((call) => !context.toolNames.includes(call.tool))
    .map((call) => ({
      position: position(entry, [call.turn, "call"]),
      message: `in "${entry.fragment}": call to unknown tool "${call.tool}"`,
      hint: suggestion(call.tool, context.toolNames),
    }));
}

/** A `without:` key must name a tool of the config. */
export function checkWithoutTools(entry: MockEntry, context: MockCheckContext): ConfigIssue[] {
  return [...entry.without.keys()]
    .filter((tool) => !context.toolNames.includes(tool))
    .map((tool) => ({
      position: position(entry, [entry.answerTurn ?? 0, "without", tool], true),
      message: `in "${entry.fragment}": without: names unknown tool "${tool}"`,
      hint: suggestion(tool, context.toolNames),
    }));
}

/** A fragment must be found (ignoring case) in some question, as the mock model looks it up. */
export function checkFragmentMatches(entry: MockEntry, context: MockCheckContext): ConfigIssue[] {
  const fragment = entry.fragment.toLowerCase();
  if (lowerCaseTexts(context.questions).some((text) => text.includes(fragment))) return [];
  const close = context.hints === false
    ? undefined
    : closestPassage(entry.fragment, context.questions);
  return [{
    position: position(entry, [], true),
    message: `fragment "${entry.fragment}" matches no question, so it is never used`,
    hint: close === undefined
      ? "a fragment must appear in a question's text (compared ignoring case)"
      : `did you mean "${close.text}" (question "${close.id}")?`,
  }];
}

const lowered = new WeakMap<readonly { question: string }[], string[]>();

/** The questions' texts in lower case, made once per question list. */
function lowerCaseTexts(questions: readonly { question: string }[]): string[] {
  let texts = lowered.get(questions);
  if (texts === undefined) {
    texts = questions.map((q) => q.question.toLowerCase());
    lowered.set(questions, texts);
  }
  return texts;
}

/** Edit-distance work spent on one did-you-mean, in character pairs. */
const SUGGESTION_BUDGET = 20_000_000;

/**
 * The stretch of question text closest to `fragment` (starting at a word, as
 * long as the fragment give or take two characters), if one is close enough
 * to be a typo. Bounded work: large question sets are searched only in part.
 */
function closestPassage(
  fragment: string,
  questions: readonly { id: string; question: string }[],
): { text: string; id: string } | undefined {
  const length = fragment.length;
  let windows = Math.floor(SUGGESTION_BUDGET / Math.max(1, (length + 2) ** 2));
  const owner = new Map<string, string>();
  for (const q of questions) {
    const text = q.question;
    for (let i = 0; i < text.length && windows > 0; i++) {
      if (i > 0 && !/\s/.test(text[i - 1])) continue;
      for (let size = Math.max(1, length - 2); size <= length + 2 && windows > 0; size++) {
        const window = text.slice(i, i + size);
        if (!owner.has(window)) owner.set(window, q.id);
        windows--;
      }
    }
    if (windows <= 0) break;
  }
  const text = closestMatch(fragment, owner.keys());
  return text === undefined ? undefined : { text, id: owner.get(text)! };
}

function position(entry: MockEntry, path: Array<string | number>, key = false) {
  return entry.locate?.(path, { key }) ?? { file: "" };
}
