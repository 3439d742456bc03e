/**
 * The text and title of an HTML page, as a corpus document: what a reader
 * of the page sees, with its block structure kept as lines.
 *
 * Built on htmlparser2's tokenizer alone, not its parser: the parser's
 * handling of unclosed and stray tags searches its stack of open elements
 * at every close tag, which a hostile page (100,000 `<div>` then as many
 * `</span>`) turns quadratic — minutes for a megabyte. The tokenizer is one
 * pass over the text, and what this module keeps per tag is a few
 * counters, so the whole extraction is linear in the page, however deep
 * or malformed its nesting.
 *
 * Rules:
 * - The title is the first `<title>`; a page without one takes its first
 *   `<h1>`; both are cut at {@link MAX_TITLE_CHARS}.
 * - Left out: `<head>` (but its title), `<script>`, `<style>`, `<noscript>`,
 *   `<template>`, `<svg>`, `<math>`, `<iframe>`, `<object>`, comments and
 *   doctype. An element of these never closed hides the rest of the page,
 *   as in a browser.
 * - Blocks (`p`, headings, lists, tables, `div`, `section`, ...) start a new
 *   line; paragraphs, headings, lists and tables are separated by a blank
 *   line (which the passage rule reads as a paragraph end). A heading gets
 *   `#` marks by its level, a list item starts with `- `, a table row is one
 *   line with its cells separated by ` | `, `<br>` ends a line.
 * - Whitespace outside `<pre>` and `<textarea>` collapses to one space, as a
 *   browser shows it; inside them it is kept as written.
 * - Character references (`&amp;`, `&#233;`) are decoded.
 *
 * @module
 */

import { Tokenizer, type TokenizerCallbacks } from "htmlparser2";

/** Longest title kept, in characters. */
export const MAX_TITLE_CHARS = 500;

/** What a page holds. */
export interface HtmlText {
  /** The page's title (see the module doc); empty when it has none. */
  title: string;
  /** Its text, lines kept, trimmed. */
  text: string;
}

/** Elements whose content is not part of the page's text. */
const HIDDEN = new Set([
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "iframe",
  "object",
]);
/** Elements after and before which a blank line stands. */
const PARAGRAPHS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "dl",
  "table",
  "pre",
  "blockquote",
  "figure",
  "hr",
  "address",
  "details",
  "fieldset",
]);
/** Elements that start and end a line. */
const LINES = new Set([
  "div",
  "section",
  "article",
  "aside",
  "header",
  "footer",
  "main",
  "nav",
  "li",
  "dt",
  "dd",
  "tr",
  "caption",
  "figcaption",
  "summary",
  "form",
  "legend",
  "option",
  "body",
  "html",
  "center",
  "tbody",
  "thead",
  "tfoot",
]);
/** Elements whose whitespace is kept as written. */
const VERBATIM = new Set(["pre", "textarea", "listing", "xmp", "plaintext"]);
/** Longest tag name looked at; a longer one is no element this module knows. */
const MAX_TAG_CHARS = 12;

/**
 * The title and text of `html`, by the rules in the module doc. Linear in
 * the length of `html` whatever its markup.
 */
export function htmlText(html: string): HtmlText {
  const out = new TextBuilder();
  let title = "";
  let titleDone = false;
  let inTitle = false;
  let h1 = "";
  let h1Done = false;
  let inH1 = false;
  let hidden = 0;
  let verbatim = 0;
  let tag = "";
  let cellsInRow = 0;

  const text = (value: string) => {
    if (inTitle) {
      if (title.length < MAX_TITLE_CHARS) title += value;
      return;
    }
    if (hidden > 0) return;
    if (inH1 && h1.length < MAX_TITLE_CHARS) h1 += value;
    if (verbatim > 0) out.verbatim(value);
    else out.flowing(value);
  };
  const open = (name: string) => {
    if (name === "title") {
      inTitle = !titleDone;
      return;
    }
    if (HIDDEN.has(name)) {
      // <head> holds the title; it hides nothing else a page shows.
      if (name !== "head") hidden++;
      return;
    }
    if (hidden > 0) return;
    if (name === "br") return out.lineBreak();
    if (VERBATIM.has(name)) verbatim++;
    if (name === "h1" && !h1Done) inH1 = true;
    if (name === "tr") cellsInRow = 0;
    if (name === "td" || name === "th") {
      if (cellsInRow++ > 0) out.flowing(" | ", true);
      return;
    }
    if (PARAGRAPHS.has(name)) out.paragraphBreak();
    else if (LINES.has(name)) out.lineBreak();
    else return;
    const level = headingLevel(name);
    if (level > 0) out.flowing(`${"#".repeat(level)} `, true);
    if (name === "li") out.flowing("- ", true);
  };
  const close = (name: string) => {
    if (name === "title") {
      if (inTitle) titleDone = true;
      inTitle = false;
      return;
    }
    if (HIDDEN.has(name)) {
      if (name !== "head" && hidden > 0) hidden--;
      return;
    }
    if (hidden > 0) return;
    if (VERBATIM.has(name) && verbatim > 0) verbatim--;
    if (name === "h1" && inH1) {
      inH1 = false;
      h1Done = h1.trim() !== "";
    }
    if (PARAGRAPHS.has(name)) out.paragraphBreak();
    else if (LINES.has(name)) out.lineBreak();
  };

  const tagName = (start: number, end: number) =>
    end - start > MAX_TAG_CHARS ? "" : html.slice(start, end).toLowerCase();
  const callbacks: TokenizerCallbacks = {
    ontext: (start, end) => text(html.slice(start, end)),
    ontextentity: (codepoint) => text(characterOf(codepoint)),
    onopentagname: (start, end) => void (tag = tagName(start, end)),
    onopentagend: () => open(tag),
    onselfclosingtag: () => {
      open(tag);
      close(tag);
    },
    onclosetag: (start, end) => close(tagName(start, end)),
    onattribdata: () => {},
    onattribentity: () => {},
    onattribend: () => {},
    onattribname: () => {},
    oncdata: () => {},
    oncomment: () => {},
    ondeclaration: () => {},
    onprocessinginstruction: () => {},
    onend: () => {},
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  tokenizer.write(html);
  tokenizer.end();
  const pageTitle = collapse(title) || collapse(h1);
  return { title: pageTitle, text: out.done() };
}

function headingLevel(name: string): number {
  return name.length === 2 && name[0] === "h" && name[1] >= "1" && name[1] <= "6"
    ? name.charCodeAt(1) - 48
    : 0;
}

/** The character of a decoded reference; an invalid code point reads as U+FFFD. */
function characterOf(codepoint: number): string {
  if (codepoint <= 0 || codepoint > 0x10ffff || (codepoint >= 0xd800 && codepoint <= 0xdfff)) {
    return "\ufffd";
  }
  return String.fromCodePoint(codepoint);
}

/** HTML's whitespace (not U+00A0: `&nbsp;` is a space a browser keeps). */
const HTML_SPACE = /[ \t\n\r\f]+/g;

function collapse(text: string): string {
  return text.replace(HTML_SPACE, " ").trim().slice(0, MAX_TITLE_CHARS);
}

/**
 * The page's text as it is built: pieces, and the line break owed before
 * the next visible text (so that breaks never pile up or lead the text).
 */
class TextBuilder {
  #parts: string[] = [];
  /** 0 none, 1 a line break, 2 a blank line: owed before the next text. */
  #owed = 0;
  /** A space is owed before the next text (collapsed whitespace). */
  #space = false;
  /** Text was written since the last line break. */
  #lineHasText = false;

  /** Text whose whitespace collapses; `raw` writes it as is (a list mark, a cell bar). */
  flowing(value: string, raw = false): void {
    const collapsed = raw ? value : value.replace(HTML_SPACE, " ");
    if (collapsed === "") return;
    let body = collapsed;
    if (!raw) {
      if (body.startsWith(" ")) {
        this.#space = this.#lineHasText;
        body = body.slice(1);
      }
      const trailing = body.endsWith(" ");
      if (trailing) body = body.slice(0, -1);
      if (body === "") return;
      this.#write(body);
      this.#space = trailing;
      return;
    }
    this.#write(body);
    this.#space = false;
  }

  /** Text written as is (inside `<pre>`); its own line breaks stand. */
  verbatim(value: string): void {
    if (value === "") return;
    this.#write(value);
    this.#space = false;
    if (value.endsWith("\n")) this.#lineHasText = false;
  }

  lineBreak(): void {
    if (this.#owed < 1) this.#owed = 1;
    this.#space = false;
  }

  paragraphBreak(): void {
    this.#owed = 2;
    this.#space = false;
  }

  #write(body: string): void {
    if (this.#parts.length > 0) {
      if (this.#owed > 0) {
        this.#parts.push(this.#owed === 2 ? "\n\n" : "\n");
        this.#lineHasText = false;
      } else if (this.#space && this.#lineHasText) this.#parts.push(" ");
    }
    this.#owed = 0;
    this.#parts.push(body);
    this.#lineHasText = true;
  }

  /** The text, each line's trailing spaces removed, at most one blank line in a row. */
  done(): string {
    const lines = this.#parts.join("").split("\n");
    const kept: string[] = [];
    let blank = 0;
    for (const line of lines) {
      const trimmed = line.trimEnd();
      if (trimmed === "") {
        if (++blank > 1) continue;
      } else blank = 0;
      kept.push(trimmed);
    }
    return kept.join("\n").trim();
  }
}
