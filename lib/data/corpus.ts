/**
 * Loads a corpus: a JSON (or JSONL) list of documents, a folder of files
 * (see `corpus_folder.ts`), or the `corpus.jsonl` of a BEIR folder
 * (`{beir: FOLDER}`, see `beir.ts`). A file or folder may be given as
 * `{path, on_error}`: `on_error: skip` leaves out (and lists) the files of a
 * folder that cannot be read instead of stopping.
 *
 * In a JSON list, a document's id is its `id` field. Documents are kept in
 * id order, so results never depend on directory listing order. Text must
 * be UTF-8.
 *
 * @module
 */

import { basename, extname } from "../util/paths.ts";
import { z } from "zod";
import { RagbenchError } from "../errors.ts";
import type { Corpus, Document, Table } from "../types.ts";
import { eachLine } from "../util/byte_lines.ts";
import { describeFsError } from "../util/fs.ts";
import { decodeUtf8, describeTextProblem, describeUtf8Problem, looksBinary } from "../util/utf8.ts";
import { type ProgressSink, slowLoadReporter } from "../util/load_progress.ts";
import { readCorpusText, type SkippedFile } from "./corpus_files.ts";
import { loadFolder, type OnError } from "./corpus_folder.ts";
import type { PdfReaderOptions } from "./formats/pdf_process.ts";
import { plural } from "../util/plural.ts";

import { describeSkipped } from "./corpus_files.ts";
export { describeSkipped, type SkippedFile } from "./corpus_files.ts";

/** Loaded corpus plus what was skipped, for the run log. */
export interface LoadedCorpus {
  corpus: Corpus;
  /** Files and links of a corpus folder left out, with the reason. */
  skipped: SkippedFile[];
  /** Things worth telling the user that do not stop the run (e.g. empty BEIR documents). */
  warnings: string[];
}

export type { OnError } from "./corpus_folder.ts";

/**
 * Where a corpus comes from: a file or folder path, the same with what to do
 * with unreadable files (`{path, on_error}`), or a BEIR folder (`{beir: FOLDER}`).
 */
export type CorpusSource = string | { path: string; on_error: OnError } | { beir: string };

/** The path a source reads (the file, folder or BEIR folder). */
export function corpusSourcePath(source: CorpusSource): string {
  return typeof source === "string" ? source : "beir" in source ? source.beir : source.path;
}

/** Options of {@link loadCorpus} and {@link loadCorpora}. */
export interface CorpusLoadOptions {
  /** Progress lines for loads that take over a second (see load_progress.ts). */
  progress?: ProgressSink;
  /** Milliseconds clock of the progress reporter (tests). */
  clock?: () => number;
  /** Limits of the PDF reader and the signal that stops it (tests make the limits small). */
  pdf?: PdfReaderOptions;
}

const jsonDocument = z.looseObject({
  id: z.union([z.string().min(1), z.int().transform(String)]),
  title: z.string().optional(),
  text: z.string(),
  source: z.string().optional(),
});

/**
 * Reads the corpus at `path` (a file or a folder).
 *
 * @throws {RagbenchError} (code "data") naming the file: missing or unreadable
 *   corpus, malformed JSON/CSV, duplicate id, empty document, empty corpus.
 */
export async function loadCorpus(
  source: CorpusSource,
  options: CorpusLoadOptions = {},
): Promise<LoadedCorpus> {
  if (typeof source !== "string" && "beir" in source) return await loadBeirSource(source.beir);
  const path = corpusSourcePath(source);
  const onError = typeof source === "string" ? "stop" : source.on_error;
  const reporter = slowLoadReporter(options.progress, options.clock);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    throw dataError(`Cannot load corpus "${path}": ${describeFsError(error)}.`, error);
  }
  const loaded = info.isDirectory
    ? await readFolder(path, { onError, reporter, pdf: options.pdf })
    : {
      corpus: { documents: await loadDocumentList(path), tables: [] },
      skipped: [],
      warnings: [],
    };
  const { documents, tables } = loaded.corpus;
  if (documents.length === 0 && tables.length === 0) {
    throw dataError(
      `Cannot load corpus "${path}": it holds no documents${
        info.isDirectory
          ? " (.txt, .md, .markdown, .rst, .html, .htm, .pdf) or tables (.csv, .json)" +
            (loaded.skipped.some((s) => s.reason === "unreadable")
              ? `; every one was unreadable (${describeSkipped(loaded.skipped).join("; ")})`
              : "")
          : ""
      }.`,
    );
  }
  documents.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  tables.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  reporter.done(
    `corpus: loaded ${plural(documents.length, "document")} and ${plural(tables.length, "table")}`,
  );
  return loaded;
}

/**
 * Reads several corpora and merges them: documents and tables of all of
 * them, in id order. A document id found in two corpora is an error.
 *
 * @throws {RagbenchError} as {@link loadCorpus}, or naming both corpora of a
 *   duplicate id.
 */
export async function loadCorpora(
  sources: readonly CorpusSource[],
  options: CorpusLoadOptions = {},
): Promise<LoadedCorpus> {
  if (sources.length === 1) return await loadCorpus(sources[0], options);
  const documents: Document[] = [];
  const tables: Table[] = [];
  const skipped: SkippedFile[] = [];
  const warnings: string[] = [];
  const owner = new Map<string, string>();
  for (const source of sources) {
    const path = corpusSourcePath(source);
    const loaded = await loadCorpus(source, options);
    for (const doc of loaded.corpus.documents) {
      const other = owner.get(doc.id);
      if (other !== undefined) {
        throw dataError(
          `Cannot merge corpora: document id "${doc.id}" is in both "${other}" and "${path}"; ids must be unique across the corpora of a config.`,
        );
      }
      owner.set(doc.id, path);
      documents.push(doc);
    }
    tables.push(...loaded.corpus.tables);
    skipped.push(...loaded.skipped);
    warnings.push(...loaded.warnings);
  }
  documents.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { corpus: { documents, tables }, skipped, warnings };
}

/** A BEIR folder's corpus; empty documents are kept and counted in a warning. */
async function loadBeirSource(folder: string): Promise<LoadedCorpus> {
  const { documents, empty } = await (await import("./beir.ts")).loadBeirCorpus(folder);
  documents.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const warnings = empty === 0 ? [] : [
    `corpus "${folder}": ${empty} of ${plural(documents.length, "document")} ${
      empty === 1 ? "is" : "are"
    } empty (no title, no text); kept, they can still be judged`,
  ];
  return { corpus: { documents, tables: [] }, skipped: [], warnings };
}

async function loadDocumentList(path: string): Promise<Document[]> {
  let items: unknown[];
  if (extname(path).toLowerCase() === ".jsonl") {
    items = readJsonlItems(path);
  } else {
    const value = parseJson(await readFile(path), path);
    if (!Array.isArray(value)) {
      throw dataError(
        `Cannot load corpus "${path}": expected a JSON list of documents ({id, title, text}), got ${typeof value}.`,
      );
    }
    items = value;
  }
  const documents: Document[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    let doc = plainDocument(item);
    if (doc === null) {
      const parsed = jsonDocument.safeParse(item);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue.path.length ? `field "${issue.path.join(".")}"` : "entry";
        throw dataError(
          `Cannot load corpus "${path}": document ${
            index + 1
          } has a bad ${field} (${issue.message}); each document needs a string "id" and "text".`,
        );
      }
      doc = parsed.data;
    }
    const previous = seen.get(doc.id);
    if (previous !== undefined) {
      throw dataError(
        `Cannot load corpus "${path}": documents ${previous + 1} and ${
          index + 1
        } both have id "${doc.id}"; ids must be unique.`,
      );
    }
    seen.set(doc.id, index);
    if (doc.text.trim() === "") {
      throw dataError(`Cannot load corpus "${path}": document "${doc.id}" is empty.`);
    }
    documents.push({
      id: doc.id,
      title: doc.title ?? doc.id,
      text: doc.text,
      source: doc.source ?? basename(path),
    });
  });
  return documents;
}

/**
 * The fields of a JSON document that {@link jsonDocument} would accept as
 * they are (a non-empty string id; text, and title and source when present,
 * strings), read without the schema; null for anything else, which the schema
 * then checks (an integer id) or refuses with its message. Why: the schema's
 * parse copies every document into a new object, and at 100,000 documents
 * those copies, garbage at once, made the main thread's first major
 * collection after the load (a 90–150 ms pause) land on the run's first
 * calls; the documents' own strings are what is kept either way.
 */
function plainDocument(
  item: unknown,
): { id: string; title?: string; text: string; source?: string } | null {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return null;
  const { id, title, text, source } = item as Record<string, unknown>;
  if (typeof id !== "string" || id.length === 0 || typeof text !== "string") return null;
  if (title !== undefined && typeof title !== "string") return null;
  if (source !== undefined && typeof source !== "string") return null;
  return { id, title, text, source };
}

async function readFolder(
  root: string,
  options: Parameters<typeof loadFolder>[1],
): Promise<LoadedCorpus> {
  const { documents, tables, skipped } = await loadFolder(root, options);
  return { corpus: { documents, tables }, skipped, warnings: [] };
}

async function readFile(path: string): Promise<string> {
  const read = await readCorpusText(path, "write it as JSONL instead, one document a line");
  if (typeof read === "string") return read;
  throw binaryListError(path);
}

function binaryListError(path: string): RagbenchError {
  return dataError(
    `Cannot load corpus "${path}": it is a binary file (a NUL byte in its first 8 KB), ` +
      "not a JSON list of documents.",
  );
}

/**
 * The items of a JSONL corpus file, read a line at a time: such a file may
 * hold more text than one string can (see `byte_lines.ts`).
 */
function readJsonlItems(path: string): unknown[] {
  const items: unknown[] = [];
  try {
    using file = Deno.openSync(path, { read: true });
    eachLine(file, (bytes, offset, number) => {
      const decoded = decodeUtf8(bytes);
      if ("tooLong" in decoded) {
        throw dataError(
          `Cannot read corpus file "${path}": line ${number}: ${
            describeTextProblem(decoded, "split the document")
          }.`,
        );
      }
      if (!("text" in decoded)) {
        const problem = { offset: offset + decoded.offset, line: number };
        throw dataError(
          `Cannot read corpus file "${path}": ${describeUtf8Problem(problem)}; ` +
            "save it as UTF-8, or remove it from the corpus folder.",
        );
      }
      const line = decoded.text;
      if (line.trim() !== "") items.push(parseJson(line, `${path}:${number}`));
    }, {
      unfinished: true,
      onFirstChunk: (bytes) => {
        if (looksBinary(bytes)) throw binaryListError(path);
      },
    });
  } catch (error) {
    if (error instanceof RagbenchError) throw error;
    throw dataError(`Cannot read corpus file "${path}": ${describeFsError(error)}.`, error);
  }
  return items;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw dataError(`Cannot load corpus "${where}": invalid JSON (${(error as Error).message}).`);
  }
}

function dataError(message: string, cause?: unknown): RagbenchError {
  return new RagbenchError("data", message, cause === undefined ? undefined : { cause });
}
