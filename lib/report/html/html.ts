/**
 * The `markup` tagged template the report's HTML is written with: every
 * value put into a template is escaped unless it is itself {@link Html}
 * (built by `markup`, or by {@link raw} for markup ragbench made itself). So
 * a model's answer, a question or a system name can only ever be text:
 * forgetting to escape is not possible, only deciding not to.
 *
 * A line break in a template's own text, with the indentation after it, is
 * dropped (as in JSX), so a long template can be wrapped anywhere; where
 * words need a space across a break, the line ends with one.
 *
 * Not named `html`: `deno fmt` reformats templates tagged `html` as HTML,
 * adding line breaks and indentation inside them.
 *
 * @module
 */

import { escapeHtml } from "./escape.ts";

/** Markup that is safe to put into a page as it is. */
export class Html {
  /** The markup. */
  readonly text: string;

  /** Wraps `text`, trusted as markup: use {@link markup} or {@link raw}. */
  constructor(text: string) {
    this.text = text;
  }

  /** The markup. */
  toString(): string {
    return this.text;
  }
}

/** What a template accepts: text (escaped), numbers, markup, lists of these; nothing for null/false. */
export type HtmlValue =
  | Html
  | string
  | number
  | null
  | undefined
  | false
  | readonly HtmlValue[];

/**
 * Markup from a template: strings and numbers are escaped, {@link Html}
 * values kept, lists joined, and `null`, `undefined` and `false` left out.
 *
 * @throws {TypeError} for any other value (an object would print as
 *   "[object Object]": a bug, not something to show).
 */
export function markup(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let texts = UNWRAPPED.get(strings);
  if (!texts) UNWRAPPED.set(strings, texts = strings.map((s) => s.replace(/\n[ \t]*/g, "")));
  let out = texts[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + texts[i + 1];
  return new Html(out);
}

/** Each template's text with its line breaks dropped, worked out once per template. */
const UNWRAPPED = new WeakMap<TemplateStringsArray, string[]>();

/** `text` as markup, unescaped: only for markup ragbench made itself. */
export function raw(text: string): Html {
  return new Html(text);
}

/** Joins markup with `separator` (itself markup). */
export function joinHtml(parts: readonly HtmlValue[], separator = ""): Html {
  return new Html(parts.map(piece).join(separator));
}

function piece(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (typeof value === "string") return escapeHtml(value);
  if (typeof value === "number") return escapeHtml(String(value));
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(piece).join("");
  throw new TypeError(`cannot put a value of type ${typeof value} into HTML`);
}
