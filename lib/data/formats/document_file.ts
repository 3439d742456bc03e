/**
 * One document file of a corpus folder, by its extension:
 *
 * - `.txt`, `.md`, `.markdown`, `.rst`: the file's text as written (UTF-8).
 *   The title is a Markdown file's first `# heading`, or a reStructuredText
 *   file's first underlined title.
 * - `.html`, `.htm`: the page's text and title (`html_text.ts`), read only
 *   when the file is at most {@link MAX_HTML_BYTES}. The HTML module is
 *   loaded at the first page, so corpora without one never load it.
 * - `.pdf`: each page's text (`pdf_process.ts`, in a subprocess), pages
 *   joined by a blank line, with the offset where each page starts kept in
 *   `Document.pages`, so every passage knows its page. The title is the
 *   PDF's own (its metadata), when it has one. Files over
 *   {@link MAX_PDF_BYTES} are not read.
 *
 * A document with no title gets one from its id (`notes/harbor_log` →
 * `harbor log`). A file that cannot be read as its format says (empty, not
 * UTF-8, over its size, a broken PDF, no text) raises a {@link RagbenchError}
 * whose message names the file and why; the folder loader decides whether
 * that stops the load (see `corpus_folder.ts`).
 *
 * @module
 */

import { RagbenchError } from "../../errors.ts";
import type { Document } from "../../types.ts";
import { describeFsError } from "../../util/fs.ts";
import { readCorpusText } from "../corpus_files.ts";
import type { PdfReader } from "./pdf_process.ts";

/** The extensions of document files, lower case. */
export const DOCUMENT_EXTENSIONS: ReadonlySet<string> = new Set([
  ".txt",
  ".md",
  ".markdown",
  ".rst",
  ".html",
  ".htm",
  ".pdf",
]);

/** Largest HTML file read, in bytes. */
export const MAX_HTML_BYTES = 32 * 1024 * 1024;
/** Largest PDF file read, in bytes. */
export const MAX_PDF_BYTES = 128 * 1024 * 1024;

/** What reading the files of one folder shares: the PDF reader, made at the first PDF. */
export interface FormatReaders {
  pdf(): Promise<PdfReader>;
}

/**
 * The document in `file` (its path relative to the folder: `rel`, its id:
 * `id`), or `binary` for a text file with a NUL byte in its first 8 KB.
 *
 * @throws {RagbenchError} (code "data") naming `rel` when the file cannot be
 *   read as its format; code "permission" when PDFs cannot be read at all.
 */
export async function readDocumentFile(
  file: string,
  rel: string,
  id: string,
  readers: FormatReaders,
): Promise<Document | { binary: true }> {
  const ext = extensionOf(rel);
  const document = (text: string, title: string, pages?: number[]): Document => {
    if (text.trim() === "") throw unreadable(rel, emptyReason(ext));
    return {
      id,
      title: title.trim() || titleFromId(id),
      text,
      source: rel,
      ...(pages ? { pages } : {}),
    };
  };
  if (ext === ".pdf") {
    const bytes = readBytes(file, rel, MAX_PDF_BYTES, "a PDF");
    const read = await (await readers.pdf()).read(bytes);
    if ("error" in read) throw unreadable(rel, read.error);
    const { text, pages } = joinPages(read.pages);
    return document(text, read.title.trim(), pages);
  }
  if (ext === ".html" || ext === ".htm") {
    checkSize(file, rel, MAX_HTML_BYTES, "an HTML file");
    const html = await readCorpusText(file);
    if (typeof html !== "string") return html;
    const { htmlText } = await import("./html_text.ts");
    const page = htmlText(html);
    return document(page.text, page.title);
  }
  const text = await readCorpusText(file);
  if (typeof text !== "string") return text;
  return document(text, textTitle(text, ext));
}

/** Pages joined by a blank line, and the offset where each starts (empty pages included). */
export function joinPages(pages: readonly string[]): { text: string; pages: number[] } {
  const starts: number[] = [];
  let text = "";
  for (const page of pages) {
    if (starts.length > 0) text += "\n\n";
    starts.push(text.length);
    text += page;
  }
  return { text, pages: starts };
}

/** The title a text document's own markup gives (empty when none). */
export function textTitle(text: string, ext: string): string {
  if (ext === ".md" || ext === ".markdown") {
    const heading = /^#\s+(.+)$/m.exec(text);
    return heading ? heading[1].replace(/\s+#+\s*$/, "").trim() : "";
  }
  if (ext === ".rst") return rstTitle(text);
  return "";
}

/**
 * A reStructuredText document's title: the first line of text underlined
 * (and maybe overlined) by a run of one punctuation character at least as
 * long as it. Only the first 200 lines are looked at.
 */
function rstTitle(text: string): string {
  const lines = text.split("\n", 200).map((l) => l.trimEnd());
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i].trim();
    const under = lines[i + 1];
    if (line === "" || isAdornment(line)) continue;
    if (isAdornment(under) && under.length >= line.length) return line;
  }
  return "";
}

const ADORNMENT = new Set("=-~^\"'`#*+_:.<>".split(""));

function isAdornment(line: string): boolean {
  if (line.length < 2 || !ADORNMENT.has(line[0])) return false;
  for (let i = 1; i < line.length; i++) if (line[i] !== line[0]) return false;
  return true;
}

/** A title made from an id: its last segment, `_` and `-` read as spaces. */
export function titleFromId(id: string): string {
  return id.split("/").pop()!.replace(/[_-]+/g, " ");
}

function extensionOf(rel: string): string {
  const dot = rel.lastIndexOf(".");
  return dot < 0 ? "" : rel.slice(dot).toLowerCase();
}

function emptyReason(ext: string): string {
  if (ext === ".pdf") return "it has no text (a scanned PDF needs OCR first)";
  if (ext === ".html" || ext === ".htm") {
    return "it has no text (nothing outside scripts, styles and markup)";
  }
  return "it is empty";
}

function checkSize(file: string, rel: string, max: number, kind: string): number {
  let size: number;
  try {
    size = Deno.statSync(file).size;
  } catch (error) {
    throw unreadable(rel, describeFsError(error), error);
  }
  if (size > max) {
    throw unreadable(
      rel,
      `it is ${size.toLocaleString("en-US")} bytes, over the ${megabytes(max)} ${kind} may be`,
    );
  }
  return size;
}

function readBytes(file: string, rel: string, max: number, kind: string): Uint8Array {
  checkSize(file, rel, max, kind);
  try {
    return Deno.readFileSync(file);
  } catch (error) {
    throw unreadable(rel, describeFsError(error), error);
  }
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

function unreadable(rel: string, why: string, cause?: unknown): RagbenchError {
  return new RagbenchError(
    "data",
    `Cannot read corpus file "${rel}": ${why}.`,
    cause === undefined ? undefined : { cause },
  );
}
