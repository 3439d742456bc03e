/**
 * Reads a data set in BEIR's format: a folder holding
 *
 * - `corpus.jsonl`: one document a line, `{"_id", "title", "text"}` (other
 *   keys, such as `metadata`, are ignored; `title` may be missing);
 * - `queries.jsonl`: one query a line, `{"_id", "text"}`;
 * - `qrels/<split>.tsv`: the header `query-id<TAB>corpus-id<TAB>score`, then
 *   one judged pair a line.
 *
 * The corpus becomes documents (`source` "corpus.jsonl"); a document whose
 * title and text are both blank is kept (it can still be judged and ranked)
 * and counted. The queries that have at least one qrels line in the split
 * become questions without answer checks, in `queries.jsonl` order; their
 * pairs with a score ≥ 1 become `evidence` with that score as the grade, and
 * pairs with a score ≤ 0 (judged not relevant) are dropped. Queries with no
 * qrels line in the split are left out and counted (a BEIR `queries.jsonl`
 * usually holds the queries of every split).
 *
 * Every problem is a {@link ConfigError} naming the file and line: a missing
 * file, invalid JSON, a missing or mistyped field, a duplicate id, a bad
 * qrels header or line, a non-integer score, a pair listed twice, and a
 * qrels line naming a query `queries.jsonl` lacks or a document the run's
 * corpus lacks. A bad line does not stop the reading: every problem of a
 * file is listed (the first 20, then a count), the queries' problems do not
 * stop the qrels check, and a line with an `_id` but another problem still
 * names a query or document (so the qrels naming it are no error). A
 * corpus error carries the ids read (`ConfigError.readIds`) so that the
 * questions can be checked in the same pass.
 *
 * @module
 */

import { join } from "../util/paths.ts";
import { z } from "zod";
import { ConfigError, IssueList, RagbenchError } from "../errors.ts";
import type { Document } from "../types.ts";
import { describeFsError } from "../util/fs.ts";
import { byteLines } from "../util/byte_lines.ts";
import { describeTextProblem, describeUtf8Problem, firstInvalidUtf8 } from "../util/utf8.ts";
import { type Evidence, MAX_GRADE, type Question } from "./question_schema.ts";

/** File names inside a BEIR folder. */
export const BEIR_FILES = {
  corpus: "corpus.jsonl",
  queries: "queries.jsonl",
  qrelsFolder: "qrels",
} as const;

/** The header line a qrels file must start with (tab-separated). */
export const QRELS_HEADER = ["query-id", "corpus-id", "score"] as const;

const idSchema = z.union([z.string().min(1, "must not be empty"), z.int().transform(String)], {
  error: "must be a non-empty string or an integer",
});
const corpusLine = z.looseObject({
  _id: idSchema,
  title: z.string().optional(),
  text: z.string(),
});
const queryLine = z.looseObject({
  _id: idSchema,
  text: z.string().refine((s) => s.trim() !== "", "must not be blank"),
});

/** A BEIR corpus, read. */
export interface BeirCorpus {
  documents: Document[];
  /** Documents whose title and text are both blank (kept). */
  empty: number;
}

/** A BEIR split, read as questions. */
export interface BeirQuestions {
  questions: Question[];
  /** Queries of `queries.jsonl` with no qrels line in the split (left out). */
  unjudged: number;
  /** Judged queries none of whose pairs is relevant (kept, with no evidence). */
  noRelevant: number;
}

/**
 * Reads `<folder>/corpus.jsonl`.
 *
 * @throws {ConfigError} (subject "corpus") naming the file and line of each problem.
 */
// deno-lint-ignore require-await
export async function loadBeirCorpus(folder: string): Promise<BeirCorpus> {
  const file = join(folder, BEIR_FILES.corpus);
  const issues = new IssueList("corpus");
  const documents: Document[] = [];
  const lineOf = new Map<string, number>();
  let empty = 0;
  for (const { line, number } of readLines(file, "corpus", issues)) {
    const { data: doc, id } = parseLine(line, number, file, corpusLine, issues);
    if (id === undefined) continue;
    const previous = lineOf.get(id);
    if (previous !== undefined) {
      issues.addAt(file, number, `document id "${id}" is also on line ${previous}`);
      continue;
    }
    // A line with an id but a bad field still names a document: qrels naming it are no error.
    lineOf.set(id, number);
    if (doc === undefined) continue;
    const title = doc.title ?? "";
    if (title.trim() === "" && doc.text.trim() === "") empty++;
    documents.push({ id, title, text: doc.text, source: BEIR_FILES.corpus });
  }
  issues.throwIfAny({ readIds: new Set(lineOf.keys()) });
  if (documents.length === 0) {
    throw new ConfigError("corpus", [{ position: { file }, message: "it holds no documents" }]);
  }
  return { documents, empty };
}

/**
 * Reads `<folder>/queries.jsonl` and `<folder>/qrels/<split>.tsv` as questions.
 * With `documentIds`, every qrels document must be one of them.
 *
 * @throws {ConfigError} (subject "questions") naming the file and line of each problem.
 */
// deno-lint-ignore require-await
export async function loadBeirQuestions(
  folder: string,
  split: string,
  context: { documentIds?: ReadonlySet<string> },
): Promise<BeirQuestions> {
  const queriesFile = join(folder, BEIR_FILES.queries);
  const qrelsFile = join(folder, BEIR_FILES.qrelsFolder, `${split}.tsv`);
  const issues = new IssueList("questions");
  const queries = new Map<string, { text: string; line: number }>();
  // Every id on a line, also on one with a problem: the qrels are checked in the same pass.
  const queryLines = new Map<string, number>();
  for (const { line, number } of readLines(queriesFile, "questions", issues)) {
    const { data: query, id } = parseLine(line, number, queriesFile, queryLine, issues);
    if (id === undefined) continue;
    const previous = queryLines.get(id);
    if (previous !== undefined) {
      issues.addAt(queriesFile, number, `query id "${id}" is also on line ${previous}`);
      continue;
    }
    queryLines.set(id, number);
    if (query !== undefined) queries.set(id, { text: query.text, line: number });
  }
  const judged = readQrels(qrelsFile, queryLines, context.documentIds, issues);
  issues.throwIfAny();
  const questions: Question[] = [];
  let noRelevant = 0;
  for (const [id, query] of queries) {
    const pairs = judged.get(id);
    if (pairs === undefined) continue;
    const evidence = pairs.filter((p) => p.grade >= 1);
    if (evidence.length === 0) noRelevant++;
    questions.push({ id, question: query.text, evidence, checks: [] });
  }
  if (questions.length === 0) {
    throw new ConfigError("questions", [{
      position: { file: qrelsFile },
      message: "it judges no query",
    }]);
  }
  return { questions, unjudged: queries.size - questions.length, noRelevant };
}

/** Reads a qrels file into query id → judged pairs (grades may be ≤ 0 here). */
function readQrels(
  file: string,
  queries: ReadonlyMap<string, unknown>,
  documentIds: ReadonlySet<string> | undefined,
  issues: IssueList,
): Map<string, Evidence[]> {
  const judged = new Map<string, Evidence[]>();
  const pairLine = new Map<string, number>();
  let header = false;
  for (const { line, number } of readLines(file, "questions", issues)) {
    if (line.trim() === "") continue;
    const fields = line.split("\t").map((f) => f.trim());
    if (!header) {
      header = true;
      if (fields.join("\t") !== QRELS_HEADER.join("\t")) {
        issues.addAt(
          file,
          number,
          `expected the header "${QRELS_HEADER.join("<TAB>")}", got ${quoteCut(line)}`,
        );
        break;
      }
      continue;
    }
    if (fields.length !== 3) {
      issues.addAt(
        file,
        number,
        `expected 3 tab-separated fields (query-id, corpus-id, score), got ${fields.length}`,
      );
      continue;
    }
    const [queryId, docId, scoreText] = fields;
    if (queryId === "" || docId === "") {
      issues.addAt(file, number, "query-id and corpus-id must not be empty");
      continue;
    }
    if (!/^-?\d{1,9}$/.test(scoreText) || Math.abs(Number(scoreText)) > MAX_GRADE) {
      issues.addAt(
        file,
        number,
        `score ${quoteCut(scoreText)} is not an integer between -${MAX_GRADE} and ${MAX_GRADE}`,
      );
      continue;
    }
    if (!queries.has(queryId)) {
      issues.addAt(
        file,
        number,
        `query-id "${queryId}" is not in ${BEIR_FILES.queries}`,
      );
      continue;
    }
    if (documentIds && !documentIds.has(docId)) {
      issues.addAt(file, number, `corpus-id "${docId}" is not a document of the corpus`);
      continue;
    }
    const key = JSON.stringify([queryId, docId]);
    const previous = pairLine.get(key);
    if (previous !== undefined) {
      issues.addAt(file, number, `the pair ${queryId} / ${docId} is also on line ${previous}`);
      continue;
    }
    pairLine.set(key, number);
    let pairs = judged.get(queryId);
    if (pairs === undefined) judged.set(queryId, pairs = []);
    pairs.push({ id: docId, grade: Number(scoreText) });
  }
  if (!header) issues.addAt(file, undefined, "the file is empty (it needs the header line)");
  return judged;
}

/**
 * One JSON line: its fields when they fit `schema` (`data`), and its `_id`
 * when that alone is readable (`id`, also for a line with another problem).
 * Every problem is added to `issues`.
 */
function parseLine<T extends z.ZodType<{ _id: string }>>(
  line: string,
  number: number,
  file: string,
  schema: T,
  issues: IssueList,
): { data?: z.output<T>; id?: string } {
  if (line.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    issues.addAt(file, number, `invalid JSON (${(error as Error).message})`);
    return {};
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    issues.addAt(file, number, 'expected a JSON object with "_id" and "text"');
    return {};
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { data: parsed.data, id: parsed.data._id };
  const issue = parsed.error.issues[0];
  const field = issue.path.length ? `field "${issue.path.join(".")}"` : "line";
  const missing = issue.path.length === 1 && !Object.hasOwn(value, String(issue.path[0]));
  issues.addAt(
    file,
    number,
    missing ? `${field} is missing` : `${field}: ${issue.message.replace(/^Invalid input: /, "")}`,
  );
  const id = idSchema.safeParse((value as { _id?: unknown })._id);
  return id.success ? { id: id.data } : {};
}

/**
 * Lines of a UTF-8 text file with their 1-based numbers, a megabyte read at a
 * time. A line that is not UTF-8 is added to `issues` and skipped, so the
 * rest of the file is still checked.
 *
 * @throws {ConfigError} when the file cannot be opened or read.
 */
function* readLines(
  file: string,
  subject: string,
  issues: IssueList,
): Generator<{ line: string; number: number }> {
  let handle: Deno.FsFile;
  try {
    handle = Deno.openSync(file, { read: true });
  } catch (error) {
    throw new ConfigError(subject, [{
      position: { file },
      message: `cannot read it: ${describeFsError(error)}`,
    }], { cause: error });
  }
  // fatal: invalid UTF-8 is refused with its place, never read as U+FFFD.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  try {
    for (const { bytes, offset, number } of byteLines(handle, { unfinished: true })) {
      let line: string;
      try {
        line = decoder.decode(bytes);
      } catch {
        const at = firstInvalidUtf8(bytes);
        const message = at === bytes.length
          ? describeTextProblem({ tooLong: true, bytes: bytes.length }, "split the line")
          : `${describeUtf8Problem({ offset: offset + at, line: number })}; save it as UTF-8`;
        issues.addAt(file, number, message);
        continue;
      }
      if (line.endsWith("\r")) line = line.slice(0, -1);
      yield { line: number === 1 ? line.replace(/^\uFEFF/, "") : line, number };
    }
  } catch (error) {
    if (error instanceof RagbenchError) throw error;
    throw new ConfigError(subject, [{
      position: { file },
      message: `cannot read it: ${describeFsError(error)}`,
    }], { cause: error });
  } finally {
    handle.close();
  }
}

function quoteCut(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 59) + "…" : text);
}
