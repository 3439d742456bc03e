/**
 * The prompts of a system type, declared in one place beside the system
 * (`SystemDef.prompts`): each slot (`system`, `final_answer`) has a default
 * text, the placeholders it may use (`template.ts`) and one line saying what
 * it is for; `fixed` lists the protocol texts the type sends that a config
 * cannot change (the react_json and code-agent reply formats). A config sets
 * a slot per system under `prompts:` — inline text or `{file: PATH}` — and
 * the loader (`lib/config/check_prompts.ts`) reads the file, checks size and
 * placeholders, and leaves the text in the system's options, so the system,
 * `config.resolved.yaml` and the run's hashes all see the same text.
 *
 * @module
 */

import { z } from "zod";

/** One configurable prompt of a system type. */
export interface PromptSlot {
  /** What the text is for, for `validate` and the docs. */
  about: string;
  /** The text used when the config sets none. */
  default: string;
  /** The placeholders the text may use. */
  placeholders: readonly string[];
}

/** Every prompt of a system type. */
export interface PromptSet {
  /** The configurable prompts, by slot name, in the order they are hashed. */
  slots: ReadonlyMap<string, PromptSlot>;
  /** Protocol texts it also sends, fixed (hashed after the slots). */
  fixed: readonly string[];
  /** The `prompts:` option of a system entry (each slot optional). */
  schema: z.ZodType<Record<string, PromptValue>>;
}

/** A prompt as a config writes it: the text, or the file that holds it. */
export type PromptValue = string | { file: string };

/** One prompt in the config: inline text or `{file: PATH}` (relative to the config). */
export const promptValueSchema = z.union([
  z.string().min(1, "is empty: write the prompt, or leave the key out to use the default"),
  z.strictObject({ file: z.string().min(1) }),
], { error: "must be the prompt's text, or {file: PATH} (a path relative to the config)" });

/** Declares the prompts of a system type. */
export function definePrompts(
  slots: Readonly<Record<string, PromptSlot>>,
  fixed: readonly string[] = [],
): PromptSet {
  const shape = Object.fromEntries(
    Object.keys(slots).map((name) => [name, promptValueSchema.optional()]),
  );
  return {
    slots: new Map(Object.entries(slots)),
    fixed,
    schema: z.strictObject(shape) as unknown as z.ZodType<Record<string, PromptValue>>,
  };
}

/** The `prompts:` of a system's validated options (the loader has put each file's text in). */
function overrides(options: Readonly<Record<string, unknown>>): ReadonlyMap<string, string> {
  const given = options.prompts;
  if (given === undefined || given === null || typeof given !== "object") return new Map();
  return new Map(
    Object.entries(given).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}

/**
 * The text of `slot` for a system with `options`: the config's, else the
 * default (placeholders still in it: see `renderPrompt`).
 *
 * @throws {TypeError} for a slot `set` does not declare (a bug).
 */
export function promptText(
  set: PromptSet,
  options: Readonly<Record<string, unknown>>,
  slot: string,
): string {
  const declared = set.slots.get(slot);
  if (declared === undefined) throw new TypeError(`no prompt slot "${slot}"`);
  return overrides(options).get(slot) ?? declared.default;
}

/** Whether the config sets `slot` (the text is not the default). */
export function promptIsSet(options: Readonly<Record<string, unknown>>, slot: string): boolean {
  return overrides(options).has(slot);
}

/**
 * Every text a system with `options` sends besides the question and what
 * tools return: its slots in declared order, then the fixed texts. This is
 * what `run.json` hashes (`prompts_sha256`), so a changed prompt stops a
 * resume.
 */
export function effectivePrompts(
  set: PromptSet,
  options: Readonly<Record<string, unknown>>,
): string[] {
  return [...[...set.slots.keys()].map((slot) => promptText(set, options, slot)), ...set.fixed];
}
