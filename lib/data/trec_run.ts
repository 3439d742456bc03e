/**
 * Reads a TREC run file (`qid Q0 docid rank score tag`, whitespace-separated,
 * one retrieved document a line), as written by ragbench (`trec/<system>.run`)
 * or any IR engine. The rank column is read but not used: like trec_eval,
 * callers order each query's documents by score (`trecOrder`).
 *
 * @module
 */

import { IssueList } from "../errors.ts";
import type { RankedDoc } from "../score/ir_metrics.ts";

/** Problems listed before the rest are only counted. */

/**
 * Parses run-file text into query id → documents with their scores, in file
 * order. A document listed twice for one query is an error, as in trec_eval.
 *
 * @throws {ConfigError} (subject "run") naming the file and line of each problem.
 */
export function parseTrecRun(text: string, file: string): Map<string, RankedDoc[]> {
  const runs = new Map<string, RankedDoc[]>();
  const seen = new Map<string, number>();
  const issues = new IssueList("run");
  const problem = (line: number, message: string) => issues.addAt(file, line, message);
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "") return;
    const fields = line.split(/\s+/);
    if (fields.length !== 6) {
      problem(i + 1, `expected 6 fields (qid Q0 docid rank score tag), got ${fields.length}`);
      return;
    }
    const [qid, , doc, , scoreText] = fields;
    const score = Number(scoreText);
    if (scoreText === "" || !Number.isFinite(score)) {
      problem(i + 1, `score ${JSON.stringify(scoreText.slice(0, 40))} is not a finite number`);
      return;
    }
    const key = JSON.stringify([qid, doc]);
    const previous = seen.get(key);
    if (previous !== undefined) {
      problem(i + 1, `document "${doc}" is listed for query "${qid}" also on line ${previous}`);
      return;
    }
    seen.set(key, i + 1);
    let docs = runs.get(qid);
    if (docs === undefined) runs.set(qid, docs = []);
    docs.push({ doc_id: doc, score });
  });
  issues.throwIfAny();
  return runs;
}
