/**
 * Loads a corpus: a JSON (or JSONL) list of documents, a folder of files, or
 * the `corpus.jsonl` of a BEIR folder (`{beir: FOLDER}`, see `beir.ts`).
 *
 * In a folder, every `.txt` and `.md` file is one document whose id is its
 * path relative to the folder without the extension (`notes/harbor.txt` →
 * `notes/harbor`), and every `.csv` or `.json` file is a table (a JSON table
 * is a list of flat objects). Other files and names starting with `.` are
 * skipped, and so are binary files and symbolic links that lead outside the
 * folder (see corpus_files.ts). In a JSON list, a document's id is its `id`
 * field. Documents are kept in id order, so results never depend on
 * directory listing order. Text must be UTF-8.
 *
 * @module
 */

import { basename, extname } from "../util/paths.ts";
import { z } from "zod";
import { RagbenchError } from "../errors.ts";
import type { Cell, Corpus, Document, Table } from "../types.ts";
import { eachLine } from "../util/byte_lines.ts";
import { describeFsError } from "../util/fs.ts";
import { decodeUtf8, describeTextProblem, describeUtf8Problem, looksBinary } from "../util/utf8.ts";
import { type LoadReporter, type ProgressSink, slowLoadReporter } from "../util/load_progress.ts";
import { listCorpusFiles, readCorpusText, type SkippedFile } from "./corpus_files.ts";
import { plural } from "../util/plural.ts";

export { describeSkipped, type SkippedFile } from "./corpus_files.ts";

/** Loaded corpus plus what was skipped, for the run log. */
export interface LoadedCorpus {
  corpus: Corpus;
  /** Files and links of a corpus folder left out, with the reason. */
  skipped: SkippedFile[];
  /** Things worth telling the user that do not stop the run (e.g. empty BEIR documents). */
  warnings: string[];
}

/** Where a corpus comes from: a file or folder path, or a BEIR folder (`{beir: FOLDER}`). */
export type CorpusSource = string | { beir: string };

/** The path a source reads (the file, folder or BEIR folder). */
export function corpusSourcePath(source: CorpusSource): string {
  return typeof source === "string" ? source : source.beir;
}

/** Options of {@link loadCorpus} and {@link loadCorpora}. */
export interface CorpusLoadOptions {
  /** Progress lines for loads that take over a second (see load_progress.ts). */
  progress?: ProgressSink;
  /** Milliseconds clock of the progress reporter (tests). */
  clock?: () => number;
}

/** Folder files read between two progress checks. */
const PROGRESS_EVERY = 500;

const DOCUMENT_EXTENSIONS = new Set([".txt", ".md"]);
const TABLE_EXTENSIONS = new Set([".csv", ".json"]);

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
  if (typeof source !== "string") return await loadBeirSource(source.beir);
  const path = source;
  const reporter = slowLoadReporter(options.progress, options.clock);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    throw dataError(`Cannot load corpus "${path}": ${describeFsError(error)}.`, error);
  }
  const loaded = info.isDirectory ? await loadFolder(path, reporter) : {
    corpus: { documents: await loadDocumentList(path), tables: [] },
    skipped: [],
    warnings: [],
  };
  const { documents, tables } = loaded.corpus;
  if (documents.length === 0 && tables.length === 0) {
    throw dataError(
      `Cannot load corpus "${path}": it holds no documents${
        info.isDirectory ? " (.txt, .md) or tables (.csv, .json)" : ""
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
    const doc = parsed.data;
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

async function loadFolder(root: string, reporter: LoadReporter): Promise<LoadedCorpus> {
  const documents: Document[] = [];
  const tables: Table[] = [];
  const skipped: SkippedFile[] = [];
  const owners = new Map<string, string>();
  const files = await listCorpusFiles(root, skipped);
  for (const [n, { full: file, rel }] of files.entries()) {
    if (n % PROGRESS_EVERY === 0) {
      reporter.step(`corpus: reading "${root}": ${n} of ${plural(files.length, "file")}`);
    }
    const ext = extname(file).toLowerCase();
    if (!DOCUMENT_EXTENSIONS.has(ext) && !TABLE_EXTENSIONS.has(ext)) {
      skipped.push({ path: rel, reason: "not_a_document" });
      continue;
    }
    const read = await readCorpusText(file);
    if (typeof read !== "string") {
      skipped.push({ path: rel, reason: "binary" });
      continue;
    }
    if (DOCUMENT_EXTENSIONS.has(ext)) {
      const id = rel.slice(0, rel.length - ext.length);
      const owner = owners.get(id);
      if (owner !== undefined) {
        throw dataError(
          `Cannot load corpus "${root}": "${owner}" and "${rel}" both give document id "${id}"; rename one of them.`,
        );
      }
      owners.set(id, rel);
      const text = read;
      if (text.trim() === "") throw dataError(`Cannot load corpus "${root}": "${rel}" is empty.`);
      documents.push({ id, title: titleOf(text, ext, id), text, source: rel });
    } else {
      tables.push(await loadTable(read, rel, ext));
    }
  }
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { corpus: { documents, tables }, skipped, warnings: [] };
}

async function loadTable(text: string, rel: string, ext: string): Promise<Table> {
  const title = basename(rel, ext);
  if (ext === ".csv") {
    // Loaded with the first CSV table, not with every run.
    const { parse: parseCsv } = await import("csv-parse/sync");
    let records: Record<string, string>[];
    try {
      records = parseCsv(text, {
        columns: true,
        skip_empty_lines: true,
        trim: true,
        bom: true,
      }) as Record<string, string>[];
    } catch (error) {
      throw dataError(
        `Cannot load corpus table "${rel}": malformed CSV (${(error as Error).message}).`,
        error,
      );
    }
    const columns = records.length ? Object.keys(records[0]) : headerOf(text);
    return { source: rel, title, columns, rows: records };
  }
  const value = parseJson(text, rel);
  if (!Array.isArray(value) || value.some((r) => !isFlatRow(r))) {
    throw dataError(
      `Cannot load corpus table "${rel}": a JSON table must be a list of objects whose values are strings, numbers, booleans or null.`,
    );
  }
  const columns: string[] = [];
  for (const row of value as Record<string, Cell>[]) {
    for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  }
  return { source: rel, title, columns, rows: value as Record<string, Cell>[] };
}

function isFlatRow(value: unknown): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.values(value).every((v) => v === null || typeof v !== "object");
}

function headerOf(text: string): string[] {
  const first = text.split(/\r?\n/)[0] ?? "";
  return first ? first.split(",").map((c) => c.trim()) : [];
}

function titleOf(text: string, ext: string, id: string): string {
  if (ext === ".md") {
    const heading = /^#\s+(.+)$/m.exec(text);
    if (heading) return heading[1].trim();
  }
  return id.split("/").pop()!.replace(/[_-]+/g, " ");
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
