/**
 * A corpus folder: every document file (`.txt`, `.md`, `.markdown`, `.rst`,
 * `.html`, `.htm`, `.pdf`; see `formats/document_file.ts`) is a document
 * whose id is its path relative to the folder without the extension
 * (`notes/harbor.txt` → `notes/harbor`), and every `.csv` or `.json` file is
 * a table (a JSON table is a list of flat objects). Other files are skipped
 * and listed, and so are binary text files and links that lead outside the
 * folder (see corpus_files.ts).
 *
 * A file that cannot be read (empty, not UTF-8, too large, a broken PDF, a
 * malformed table) stops the load with a message naming it, unless the
 * corpus says `on_error: skip`: then it is left out and listed with the
 * reason, like the other skipped files. Two files giving one id stop the
 * load either way: that is a mistake in the folder, not an unreadable file.
 *
 * @module
 */

import { basename, extname } from "../util/paths.ts";
import { RagbenchError } from "../errors.ts";
import type { Cell, Document, Table } from "../types.ts";
import type { LoadReporter } from "../util/load_progress.ts";
import { listCorpusFiles, readCorpusText, type SkippedFile } from "./corpus_files.ts";
import {
  DOCUMENT_EXTENSIONS,
  type FormatReaders,
  readDocumentFile,
} from "./formats/document_file.ts";
import type { PdfReader, PdfReaderOptions } from "./formats/pdf_process.ts";
import { plural } from "../util/plural.ts";

/** What to do with a file that cannot be read: stop the load, or skip and list it. */
export type OnError = "stop" | "skip";

/** Folder files read between two progress checks. */
const PROGRESS_EVERY = 500;

const TABLE_EXTENSIONS = new Set([".csv", ".json"]);

/** Options of {@link loadFolder}. */
export interface FolderOptions {
  onError: OnError;
  reporter: LoadReporter;
  /** Limits of the PDF reader (tests make them small). */
  pdf?: PdfReaderOptions;
}

/** The documents and tables of the folder `root`, and what was left out. */
export async function loadFolder(
  root: string,
  options: FolderOptions,
): Promise<{ documents: Document[]; tables: Table[]; skipped: SkippedFile[] }> {
  const documents: Document[] = [];
  const tables: Table[] = [];
  const skipped: SkippedFile[] = [];
  const owners = new Map<string, string>();
  const files = await listCorpusFiles(root, skipped);
  let pdfReader: PdfReader | null = null;
  const readers: FormatReaders = {
    pdf: async () => {
      if (pdfReader === null) {
        const { PdfReader } = await import("./formats/pdf_process.ts");
        pdfReader = new PdfReader(options.pdf);
      }
      return pdfReader;
    },
  };
  try {
    for (const [n, { full: file, rel }] of files.entries()) {
      if (n % PROGRESS_EVERY === 0) {
        options.reporter.step(`corpus: reading "${root}": ${n} of ${plural(files.length, "file")}`);
      }
      const ext = extname(file).toLowerCase();
      const isDocument = DOCUMENT_EXTENSIONS.has(ext);
      if (!isDocument && !TABLE_EXTENSIONS.has(ext)) {
        skipped.push({ path: rel, reason: "not_a_document" });
        continue;
      }
      if (isDocument) {
        const id = rel.slice(0, rel.length - ext.length);
        const owner = owners.get(id);
        if (owner !== undefined) {
          throw dataError(
            `Cannot load corpus "${root}": "${owner}" and "${rel}" both give document id "${id}"; rename one of them.`,
          );
        }
        owners.set(id, rel);
      }
      let read: Document | Table | { binary: true };
      try {
        read = isDocument
          ? await readDocumentFile(file, rel, rel.slice(0, rel.length - ext.length), readers)
          : await readTable(file, rel, ext);
      } catch (error) {
        if (!(error instanceof RagbenchError) || error.code !== "data") throw error;
        if (options.onError === "skip") {
          skipped.push({ path: rel, reason: "unreadable", detail: reasonOf(error.message) });
          continue;
        }
        throw dataError(
          `${error.message.replace(/\.$/, "")}. To leave such files out instead, write the ` +
            `corpus as {path: ${root}, on_error: skip}.`,
          error,
        );
      }
      if ("binary" in read) skipped.push({ path: rel, reason: "binary" });
      else if ("columns" in read) tables.push(read);
      else documents.push(read);
    }
  } finally {
    await (pdfReader as PdfReader | null)?.close();
  }
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { documents, tables, skipped };
}

/** The part of a "Cannot read corpus file "X": why." message after the colon. */
function reasonOf(message: string): string {
  const colon = message.indexOf('": ');
  const why = colon < 0 ? message : message.slice(colon + 3);
  return why.replace(/\.$/, "");
}

async function readTable(
  file: string,
  rel: string,
  ext: string,
): Promise<Table | { binary: true }> {
  const text = await readCorpusText(file);
  if (typeof text !== "string") return text;
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw dataError(
      `Cannot load corpus table "${rel}": invalid JSON (${(error as Error).message}).`,
    );
  }
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

function dataError(message: string, cause?: unknown): RagbenchError {
  return new RagbenchError("data", message, cause === undefined ? undefined : { cause });
}
