/**
 * TREC run files: each retrieving system's document rankings in the format
 * trec_eval and other IR tools read (`qid Q0 docid rank score tag`, one
 * line a retrieved document), and the questions' evidence as a qrels file
 * (`qid 0 docid grade`), both in the run directory's `trec/` folder:
 *
 * - `trec/qrels.txt`: every question with evidence;
 * - `trec/<system>.run`: repeat 1 of each system that retrieves;
 *   `trec/<system>.repeat<N>.run`: repeat N ≥ 2 (a run file may hold a query once).
 *
 * The score column is the score ragbench ranked by, written as the shortest
 * decimal that reads back as the same double, and the ranking is in
 * trec_eval's own order (score descending, ties by document id descending),
 * so `trec_eval -c qrels.txt <system>.run` evaluates exactly the ranking
 * ragbench scored. A question or document id holding whitespace cannot be
 * written in this format, nor a ranking without scores (a line resumed from
 * an older ragbench): such lines are left out and counted.
 *
 * @module
 */

import { join } from "../util/paths.ts";
import type { Question } from "../data/question_schema.ts";
import { RagbenchError } from "../errors.ts";
import { systemRetrieves } from "../score/retrieval_summary.ts";
import type { QuestionResult } from "../types.ts";
import { describeFsError, writeChunksAtomic, writeFileAtomic } from "../util/fs.ts";

/** The folder of the TREC files inside a run directory. */
export const TREC_FOLDER = "trec";

const WHITESPACE = /\s/;

/** Text of a file plus the lines that could not be written. */
export interface TrecText {
  text: string;
  /** Lines left out: an id held whitespace, or the ranking had no scores. */
  skipped: number;
}

/** The run-file text of one system's lines (one repeat), in the order given. */
export function trecRunText(tag: string, lines: readonly QuestionResult[]): TrecText {
  const counts = { skipped: 0 };
  const text = [...trecRunChunks(tag, lines, counts)].join("");
  return { text, skipped: counts.skipped };
}

/**
 * The run file of {@link trecRunText} a question at a time, for writing in
 * pieces: a long retrieval run's file (every question × `top_k` lines) can
 * be more text than one string may hold. `counts.skipped` grows by the lines
 * left out as the pieces are made.
 */
export function* trecRunChunks(
  tag: string,
  lines: readonly QuestionResult[],
  counts: { skipped: number },
): Generator<string> {
  for (const line of lines) {
    // Lines resumed from an older ragbench have a ranking but no scores: they cannot be written.
    const { ranking = [], scores = [] } = line.retrieval;
    const badQuery = WHITESPACE.test(line.question_id) || scores.length !== ranking.length;
    let chunk = "";
    ranking.forEach((doc, i) => {
      if (badQuery || WHITESPACE.test(doc)) {
        counts.skipped++;
        return;
      }
      chunk += `${line.question_id} Q0 ${doc} ${i + 1} ${String(scores[i])} ${tag}\n`;
    });
    if (chunk !== "") yield chunk;
  }
}

/** The qrels text of the questions' evidence (`qid 0 docid grade`). */
export function trecQrelsText(questions: readonly Question[]): TrecText {
  const out: string[] = [];
  let skipped = 0;
  for (const q of questions) {
    for (const e of q.evidence ?? []) {
      if (WHITESPACE.test(q.id) || WHITESPACE.test(e.id)) skipped++;
      else out.push(`${q.id} 0 ${e.id} ${e.grade}`);
    }
  }
  return { text: out.map((l) => l + "\n").join(""), skipped };
}

/** File name of a system's run for one repeat. */
export function trecRunName(system: string, repeat: number): string {
  return repeat === 1 ? `${system}.run` : `${system}.repeat${repeat}.run`;
}

/**
 * Writes `trec/qrels.txt` and a run file per retrieving system and repeat.
 * `results` are in the order the run files should list them. The qrels
 * come from `questions`, or are given as text (`ragbench merge` copies a
 * shard's, which every shard writes whole).
 *
 * @returns the files written (relative to `dir`) and the lines left out.
 * @throws {RagbenchError} code "io" when the folder or a file cannot be written.
 */
export async function writeTrecFiles(
  dir: string,
  systems: ReadonlyArray<{ name: string; tools: readonly string[] }>,
  results: readonly QuestionResult[],
  questions: readonly Question[] | { qrels: string },
): Promise<{ files: string[]; skipped: number }> {
  const folder = join(dir, TREC_FOLDER);
  try {
    await Deno.mkdir(folder, { recursive: true });
  } catch (error) {
    throw new RagbenchError("io", `Cannot create "${folder}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  const files: string[] = [];
  const qrels = "qrels" in questions
    ? { text: questions.qrels, skipped: 0 }
    : trecQrelsText(questions);
  let skipped = qrels.skipped;
  await writeFileAtomic(join(folder, "qrels.txt"), qrels.text);
  files.push(`${TREC_FOLDER}/qrels.txt`);
  for (const system of systems) {
    const lines = results.filter((r) => r.system === system.name);
    if (!systemRetrieves(system.tools, lines)) continue;
    const repeats = [...new Set(lines.map((l) => l.repeat))].sort((a, b) => a - b);
    for (const repeat of repeats.length ? repeats : [1]) {
      const counts = { skipped: 0 };
      const name = trecRunName(system.name, repeat);
      const ofRepeat = lines.filter((l) => l.repeat === repeat);
      await writeChunksAtomic(join(folder, name), trecRunChunks(system.name, ofRepeat, counts));
      skipped += counts.skipped;
      files.push(`${TREC_FOLDER}/${name}`);
    }
  }
  return { files, skipped };
}
