/**
 * The `html` tagged template the report's markup is written with: every
 * value put into a template is escaped unless it is itself {@link Html}
 * (built by `html` or, for markup made elsewhere such as SVG text, by
 * {@link raw}). So a model's answer, a question or a system name can only
 * ever be text: forgetting to escape is not possible, only deciding not to.
 *
 * @module
 */

import { escapeHtml } from "./escape.ts";

/** Markup that is safe to put into a page as it is. */
export class Html {
  /** The markup. */
  readonly text: string;

  /** Wraps `text`, trusted as markup: use {@link html} or {@link raw}. */
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
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1];
  return new Html(out);
}

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
