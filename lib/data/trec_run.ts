/**
 * Reads a TREC run file (`qid Q0 docid rank score tag`, whitespace-separated,
 * one retrieved document a line), as written by ragbench (`trec/<system>.run`)
 * or any IR engine. The rank column is read but not used: like trec_eval,
 * callers order each query's documents by score (`trecOrder`).
 *
 * @module
 */

import { ConfigError, IssueList, RagbenchError } from "../errors.ts";
import { eachLine } from "../util/byte_lines.ts";
import { describeFsError } from "../util/fs.ts";
import type { RankedDoc } from "../types.ts";

/**
 * Parses run-file text into query id → documents with their scores, in file
 * order. A document listed twice for one query is an error, as in trec_eval.
 *
 * @throws {ConfigError} (subject "run") naming the file and line of each problem.
 */
export function parseTrecRun(text: string, file: string): Map<string, RankedDoc[]> {
  const run = new RunReader(file);
  text.split("\n").forEach((raw, i) => run.add(raw, i + 1));
  return run.finish();
}

/**
 * Reads the run file at `path` as {@link parseTrecRun} parses its text, a
 * line at a time (`byte_lines.ts`): a run of many queries at a deep cut-off
 * can be more text than one string may hold.
 *
 * @throws {ConfigError} (subject "run") naming the file (and line) of each problem.
 */
export function readTrecRun(path: string): Map<string, RankedDoc[]> {
  const run = new RunReader(path);
  const decoder = new TextDecoder();
  try {
    using file = Deno.openSync(path, { read: true });
    eachLine(file, (bytes, _offset, number) => run.add(decoder.decode(bytes), number), {
      unfinished: true,
    });
  } catch (error) {
    if (error instanceof RagbenchError) throw error;
    throw new ConfigError("run", [{
      position: { file: path },
      message: `cannot read it: ${describeFsError(error)}`,
    }], { cause: error });
  }
  return run.finish();
}

/** A run file's lines, checked and gathered one by one. */
class RunReader {
  readonly #runs = new Map<string, RankedDoc[]>();
  readonly #seen = new Map<string, number>();
  readonly #issues = new IssueList("run");

  constructor(readonly file: string) {}

  add(raw: string, number: number): void {
    const line = raw.trim();
    if (line === "") return;
    const fields = line.split(/\s+/);
    if (fields.length !== 6) {
      this.#problem(
        number,
        `expected 6 fields (qid Q0 docid rank score tag), got ${fields.length}`,
      );
      return;
    }
    const [qid, , doc, , scoreText] = fields;
    const score = Number(scoreText);
    if (scoreText === "" || !Number.isFinite(score)) {
      this.#problem(
        number,
        `score ${JSON.stringify(scoreText.slice(0, 40))} is not a finite number`,
      );
      return;
    }
    const key = JSON.stringify([qid, doc]);
    const previous = this.#seen.get(key);
    if (previous !== undefined) {
      this.#problem(
        number,
        `document "${doc}" is listed for query "${qid}" also on line ${previous}`,
      );
      return;
    }
    this.#seen.set(key, number);
    let docs = this.#runs.get(qid);
    if (docs === undefined) this.#runs.set(qid, docs = []);
    docs.push({ doc_id: doc, score });
  }

  /** The run, once every line is in. @throws {ConfigError} listing the problems seen. */
  finish(): Map<string, RankedDoc[]> {
    this.#issues.throwIfAny();
    return this.#runs;
  }

  #problem(line: number, message: string): void {
    this.#issues.addAt(this.file, line, message);
  }
}
