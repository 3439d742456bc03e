/**
 * The engine of the `corpus_grep` tool (declared in `corpus_grep.ts`, whose
 * comment states the rules it keeps): scans the corpus's line store for
 * plain words or an RE2 pattern and formats what it found. Only the sandbox
 * worker loads it, on the tool's first `prepare` or call.
 *
 * @module
 */

import { type ToolContext, toolError, toolResult, type ToolReturnValue } from "./define_tool.ts";
import {
  type CorpusGrepArgs,
  type CorpusGrepOptions,
  REGEX_TIME_BUDGET_MS,
} from "./corpus_grep_args.ts";
import type { Corpus } from "../lib/types.ts";
import type { Document } from "../lib/types.ts";
import { closestMatch } from "../lib/util/did_you_mean.ts";
import {
  cutLinesIn,
  documentRange,
  isCut,
  lineAddress,
  type LineRange,
  type LineStore,
  lineStore,
  lineTexts,
  lowerForScan,
  prepareLineStore,
  SCAN_CHARS,
} from "../lib/grep/line_store.ts";
import { type LineHit, type ScanResult, scanWords } from "../lib/grep/line_scan.ts";
import { scanRegex } from "../lib/grep/regex_scan.ts";
import { compileRegex } from "../lib/regex/re2.ts";
import { Re2MemoryError } from "../lib/regex/re2_instance.ts";
import { requiredLiterals } from "../lib/regex/re2_prefilter.ts";
import { lineAutomaton } from "../lib/regex/re2_automaton.ts";
import { toRe2Syntax } from "../lib/regex/re2_syntax.ts";

/** Matching lines counted before the count is reported as "more than". */
const COUNT_LIMIT = 10_000;
/** Characters of a line shown; a longer line shows a window around its first match. */
const SHOWN_CHARS = 300;
/** Characters shown before the first match when a long line is cut. */
const SHOWN_BEFORE = 80;
/** Ids listed in a not-found message when none is close. */
const MAX_IDS_LISTED = 10;

/**
 * Builds the corpus's line store over its UTF-8 form (see `prepare` in
 * corpus_grep.ts), a slice at a time: the worker serves other calls between
 * slices.
 */
export async function prepareGrep(corpus: Corpus): Promise<LineStore> {
  return await prepareLineStore(corpus);
}

/** One `corpus_grep` call. */
export async function runGrep(
  args: CorpusGrepArgs,
  ctx: ToolContext<CorpusGrepOptions>,
): Promise<ToolReturnValue> {
  const store = lineStore(ctx.corpus);
  let range: LineRange | undefined;
  let scope = `${store.documents.length} document${store.documents.length === 1 ? "" : "s"}`;
  if (args.doc_id !== undefined) {
    const doc = findDocument(store.documents, args.doc_id);
    if (doc === undefined) return notFound(store.documents, args.doc_id);
    range = documentRange(store, doc);
    scope = `document "${store.documents[doc].id}"`;
  }
  const cap = ctx.options.max_results ?? 50;
  const limit = Math.min(args.max_results, cap);
  let scan: ScanResult;
  let what: string;
  if (args.regex) {
    const compiled = await compileRegex(args.pattern, {
      caseSensitive: args.case_sensitive,
      lineMode: true,
    });
    if (!compiled.ok) return toolError("invalid_args", compiled.message);
    what = `regex /${args.pattern}/${args.case_sensitive ? "" : "i"}`;
    const re2Source = toRe2Syntax(args.pattern);
    const prefilter = requiredLiterals(re2Source, args.case_sensitive);
    try {
      scan = scanRegex(store, compiled.regex, {
        range,
        limit: COUNT_LIMIT,
        signal: ctx.signal,
        prefilter,
        automaton: lineAutomaton(re2Source, args.case_sensitive),
        deadline: performance.now() + REGEX_TIME_BUDGET_MS,
      });
    } catch (error) {
      if (error instanceof Re2MemoryError) {
        return toolError("execution", error.message, { detail: String(error.cause) });
      }
      throw error;
    }
  } else {
    const words = args.pattern.split(/\s+/).filter((w) => w !== "");
    if (words.length === 0) {
      return toolError(
        "invalid_args",
        "pattern has no words: give one or more words separated by spaces.",
      );
    }
    what = `${words.length === 1 ? "the word" : "all of the words"} ${
      words.map((w) => JSON.stringify(w)).join(" ")
    }${args.case_sensitive ? " (case-sensitive)" : ""}`;
    const needles = args.case_sensitive ? words : words.map(lowerForScan);
    scan = scanWords(store, needles, {
      caseSensitive: args.case_sensitive,
      range,
      limit: COUNT_LIMIT,
      signal: ctx.signal,
    });
  }
  return report(store, scan, {
    what,
    scope,
    cutLines: cutLinesIn(store, range),
    limit,
    capped: limit < args.max_results,
    oneDocument: range !== undefined,
    context: args.context_lines,
    regex: args.regex,
  });
}

interface ReportOptions {
  what: string;
  scope: string;
  /** Lines of the scope longer than {@link SCAN_CHARS}. */
  cutLines: number;
  limit: number;
  /** The tool option lowered what the model asked for. */
  capped: boolean;
  /** The search was limited to one document (doc_id). */
  oneDocument: boolean;
  context: number;
  regex: boolean;
}

function report(store: LineStore, scan: ScanResult, opts: ReportOptions): ToolReturnValue {
  const total = scan.hits.length;
  const stopped = scan.stoppedAtLine === undefined
    ? undefined
    : stopNote(store, scan.stoppedAtLine, opts.scope);
  if (total === 0) {
    const hint = opts.regex
      ? "Check the pattern (RE2 syntax, one line at a time), or try plain words."
      : "Every word must be on the same line: try fewer or shorter words, or regex: true.";
    const cut = opts.cutLines ? ` ${cutNote(opts.cutLines, opts.scope, opts.regex)}` : "";
    const stop = stopped ? ` ${stopped.note}` : "";
    return toolResult({
      output: stopped
        ? `No line in ${opts.scope} matches ${opts.what} before the search stopped.${stop}${cut}`
        : `No line in ${opts.scope} matches ${opts.what}. ${hint}${cut}`,
      data: { results: [], ...stopped?.data },
    });
  }
  const shown = scan.hits.slice(0, opts.limit);
  const count = scan.stoppedAtLimit
    ? `more than ${total}`
    : stopped
    ? `at least ${total}`
    : `${total}`;
  let header: string;
  if (shown.length === total && !scan.stoppedAtLimit) {
    header = `${total} matching line${total === 1 ? "" : "s"} in ${opts.scope} for ${opts.what}` +
      (stopped ? " before the search stopped (see the note below):" : ":");
  } else if (opts.capped) {
    header = `Showing ${shown.length} of ${count} matching lines for ${opts.what} ` +
      `(${opts.limit} is the most per call); narrow the pattern` +
      (opts.oneDocument ? "." : " or search one document with doc_id.");
  } else {
    header = `Showing ${shown.length} of ${count} matching lines for ${opts.what}; ` +
      "narrow the pattern or raise max_results.";
  }
  const lines = [header];
  // Where each shown matching line ends in the output (lines joined by "\n"), so an output over
  // the run's limit is cut between lines and credits only the lines the model read.
  const ends: number[] = [];
  let chars = header.length;
  const push = (line: string) => {
    lines.push(line);
    chars += 1 + line.length;
  };
  const results: Array<
    { doc_id: string; line: number; text: string; cut?: true; line_chars?: number }
  > = [];
  const matched = new Map<number, LineHit>(shown.map((hit) => [hit.line, hit]));
  for (const group of groups(store, shown, opts.context)) {
    if (lines.length > 1) push("--");
    const docId = store.documents[group.doc].id;
    const texts = lineTexts(store, group.from, group.to);
    for (let line = group.from; line < group.to; line++) {
      const number = line - store.docFirstLine[group.doc] + 1;
      const hit = matched.get(line);
      const text = excerpt(texts[line - group.from], hit?.column ?? 0);
      if (hit !== undefined && isCut(store, line)) {
        const lineChars = store.lineLength[line];
        push(
          `${docId}:${number}: ${text} [searched the first ${SCAN_CHARS} of ${lineChars} characters]`,
        );
        results.push({ doc_id: docId, line: number, text, cut: true, line_chars: lineChars });
        ends.push(chars);
      } else if (hit !== undefined) {
        push(`${docId}:${number}: ${text}`);
        results.push({ doc_id: docId, line: number, text });
        ends.push(chars);
      } else {
        push(`${docId}-${number}- ${text}`);
      }
    }
  }
  if (stopped) push(stopped.note);
  if (opts.cutLines) push(cutNote(opts.cutLines, opts.scope, opts.regex));
  return toolResult({
    output: lines.join("\n"),
    data: { results, ...stopped?.data },
    result_ends: ends,
  });
}

/** Says where a regex search stopped at its time budget, and what to do about it. */
function stopNote(
  store: LineStore,
  line: number,
  scope: string,
): { note: string; data: { stopped_at: { doc_id: string; line: number } } } {
  const { doc, lineNumber } = lineAddress(store, line);
  const docId = store.documents[doc].id;
  return {
    note: `Note: the search stopped after ${REGEX_TIME_BUDGET_MS / 1000} s of regex matching, at ` +
      `${docId}:${lineNumber}; that line and the rest of ${scope} were not searched. Large ` +
      "repetition counts such as {1,1000} make matching slow on long lines: simplify the " +
      "pattern, or search one document with doc_id.",
    data: { stopped_at: { doc_id: docId, line: lineNumber } },
  };
}

/** Says that long lines were searched only in part, so a miss there is not final. */
function cutNote(count: number, scope: string, regex: boolean): string {
  const lines = count === 1 ? "1 line" : `${count} lines`;
  return `Note: ${lines} in ${scope} ${count === 1 ? "is" : "are"} longer than ${SCAN_CHARS} ` +
    `characters; only the first ${SCAN_CHARS} characters of ${count === 1 ? "it" : "each"} ` +
    `were searched${regex ? ", and $ does not match at the cut" : ""}.`;
}

/** Runs of lines to print: each hit with its context, merged when they touch, within one document. */
function groups(
  store: LineStore,
  hits: readonly LineHit[],
  context: number,
): Array<{ doc: number; from: number; to: number }> {
  const out: Array<{ doc: number; from: number; to: number }> = [];
  for (const hit of hits) {
    const { doc } = lineAddress(store, hit.line);
    const from = Math.max(hit.line - context, store.docFirstLine[doc]);
    const to = Math.min(hit.line + context + 1, store.docFirstLine[doc + 1]);
    const last = out[out.length - 1];
    if (last !== undefined && last.doc === doc && from <= last.to) last.to = Math.max(last.to, to);
    else out.push({ doc, from, to });
  }
  return out;
}

/** At most {@link SHOWN_CHARS} of a line, starting a little before `column` when it is cut. */
function excerpt(text: string, column: number): string {
  if (text.length <= SHOWN_CHARS) return text;
  let start = Math.max(0, Math.min(column - SHOWN_BEFORE, text.length - SHOWN_CHARS));
  if (isLowSurrogate(text.charCodeAt(start))) start--;
  let end = start + SHOWN_CHARS;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** Document index by id: exact, then trimmed, then ignoring case when that picks one document. */
const indexes = new WeakMap<readonly Document[], Map<string, number>>();

function findDocument(documents: readonly Document[], id: string): number | undefined {
  let index = indexes.get(documents);
  if (index === undefined) {
    index = new Map();
    for (let d = 0; d < documents.length; d++) {
      if (!index.has(documents[d].id)) index.set(documents[d].id, d);
    }
    indexes.set(documents, index);
  }
  const exact = index.get(id) ?? index.get(id.trim());
  if (exact !== undefined) return exact;
  const lower = id.trim().toLowerCase();
  const folded: number[] = [];
  for (let d = 0; d < documents.length && folded.length < 2; d++) {
    if (documents[d].id.toLowerCase() === lower) folded.push(d);
  }
  return folded.length === 1 ? folded[0] : undefined;
}

function notFound(documents: readonly Document[], id: string): ToolReturnValue {
  const shown = id.length > 100 ? `${id.slice(0, 100)}…` : id;
  if (documents.length === 0) {
    return toolError("not_found", `No document "${shown}": the collection has no documents.`);
  }
  const hint = closestMatch(id.trim(), documents.map((d) => d.id));
  const tail = hint !== undefined
    ? ` — did you mean "${hint}"?`
    : documents.length <= MAX_IDS_LISTED
    ? `. Known ids: ${documents.map((d) => `"${d.id}"`).join(", ")}.`
    : ". Leave doc_id out to search every document, or use list_documents to find the id.";
  return toolError("not_found", `No document has the id "${shown}"${tail}`);
}
