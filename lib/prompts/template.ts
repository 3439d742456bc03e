/**
 * Prompt templates: a prompt is plain text in which `{{name}}` (white space
 * inside the braces allowed) stands for a value known only when the prompt is
 * sent — the question, the tools offered, the step budget. Which names a
 * prompt may use is declared by its slot (`prompt_set.ts`); an unknown one
 * is a config error, caught when the config loads.
 *
 * Anything else in braces is text: `{"answer": "..."}` or `{{ 1 + 1 }}` are
 * sent as written, so prompts can show JSON. Values are put in one pass: a
 * value holding `{{tools}}` (a question, say) is not expanded again.
 *
 * Scanning is linear in the template's length (a `{{` looks at most
 * {@link MAX_PLACEHOLDER_CHARS} characters ahead for its `}}`), so a huge
 * or hostile prompt cannot stall loading.
 *
 * @module
 */

/** The longest prompt, in characters, inline or from a file. */
export const MAX_PROMPT_CHARS = 100_000;

/** Characters between `{{` and `}}` that can still make a placeholder. */
export const MAX_PLACEHOLDER_CHARS = 80;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A placeholder found in a template. */
export interface PlaceholderUse {
  name: string;
  /** Offset of its `{{` in the template. */
  start: number;
  /** Offset just past its `}}`. */
  end: number;
}

/** The placeholders of `template`, in order. */
export function placeholdersIn(template: string): PlaceholderUse[] {
  const found: PlaceholderUse[] = [];
  let at = template.indexOf("{{");
  while (at >= 0) {
    const window = template.slice(at + 2, at + 2 + MAX_PLACEHOLDER_CHARS + 2);
    const close = window.indexOf("}}");
    const name = close < 0 ? "" : window.slice(0, close).trim();
    if (close >= 0 && NAME.test(name)) {
      const end = at + 2 + close + 2;
      found.push({ name, start: at, end });
      at = template.indexOf("{{", end);
    } else {
      at = template.indexOf("{{", at + 1);
    }
  }
  return found;
}

/**
 * `template` with each placeholder replaced by its value in `values`.
 *
 * @throws {TypeError} for a placeholder without a value: the config check
 *   (`lib/config/check_prompts.ts`) refuses unknown names, so this is a bug.
 */
export function renderPrompt(template: string, values: ReadonlyMap<string, string>): string {
  if (!template.includes("{{")) return template;
  const uses = placeholdersIn(template);
  if (uses.length === 0) return template;
  const parts: string[] = [];
  let from = 0;
  for (const use of uses) {
    const value = values.get(use.name);
    if (value === undefined) {
      throw new TypeError(`prompt placeholder {{${use.name}}} has no value (checked at load)`);
    }
    parts.push(template.slice(from, use.start), value);
    from = use.end;
  }
  parts.push(template.slice(from));
  return parts.join("");
}
