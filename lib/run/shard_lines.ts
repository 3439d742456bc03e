/**
 * The result lines of a set of shards, for `ragbench merge`: each shard's
 * `per_question_results.jsonl` is read a megabyte at a time, every line
 * checked against the result-line schema and against the partition (a line
 * whose job is not its shard's is refused, naming file and line), and only
 * where each line is kept (shard, byte offset, length) and what the TREC
 * run files need of it (its ranking and scores). The merged file is then
 * written by copying each line's bytes in the order of the whole run's jobs
 * (system, question, repeat: the order `run` rewrites its file in), so it
 * holds the very lines the shards wrote.
 *
 * @module
 */

import { join } from "../util/paths.ts";
import { RagbenchError } from "../errors.ts";
import type { QuestionResult } from "../types.ts";
import { describeFsError, eachFileLine } from "../util/fs.ts";
import { readResultLine } from "./result_line.ts";
import { RUN_FILES } from "./run_dir.ts";
import { assignShards, jobIndex, type ShardLayout } from "./shard.ts";

/** Where the lines of the whole run are, by job. */
export interface ShardLines {
  /** Shard folder of each job's line (index into `dirs`), −1 when none. */
  partOf: Int32Array;
  offsetOf: Float64Array;
  lengthOf: Float64Array;
  /** Folders, as given. */
  dirs: readonly string[];
  /** What the TREC run files need of each line, by job (undefined: no line). */
  trec: Array<QuestionResult | undefined>;
  /** Lines found per shard index. */
  found: Map<number, number>;
  /** Lines expected per shard index. */
  expected: Map<number, number>;
  /** Lines that repeated an earlier line's job in the same shard (the later one is kept). */
  duplicates: number;
}

/**
 * Reads the lines of `parts` against `layout` split into `count` shards.
 *
 * @throws {RagbenchError} ("data") for a line that is not a result line or
 *   whose job is not its shard's; ("io") for a file that cannot be read.
 */
export function readShardLines(
  parts: ReadonlyArray<{ dir: string; index: number }>,
  layout: ShardLayout,
  count: number,
): ShardLines {
  const shardOf = assignShards(layout, count);
  const total = shardOf.length;
  const lines: ShardLines = {
    partOf: new Int32Array(total).fill(-1),
    offsetOf: new Float64Array(total),
    lengthOf: new Float64Array(total),
    dirs: parts.map((p) => p.dir),
    trec: new Array(total),
    found: new Map(),
    expected: new Map(),
    duplicates: 0,
  };
  for (let j = 0; j < total; j++) {
    const index = shardOf[j] + 1;
    lines.expected.set(index, (lines.expected.get(index) ?? 0) + 1);
  }
  const systems = new Map(layout.systems.map((s, i) => [s.name, i]));
  const questions = new Map(layout.questions.map((id, i) => [id, i]));
  const decoder = new TextDecoder();
  parts.forEach((part, p) => {
    const path = join(part.dir, RUN_FILES.results);
    const seen = new Set<number>();
    const take = (bytes: Uint8Array, offset: number, number: number) => {
      const line = readResultLine(decoder.decode(bytes), path, number);
      if (line === null) return;
      const s = systems.get(line.system);
      const q = questions.get(line.question_id);
      const inRun = s !== undefined && q !== undefined && Number.isInteger(line.repeat) &&
        line.repeat >= 1 && line.repeat <= layout.repeats;
      const j = inRun ? jobIndex(layout, { system: s, question: q, repeat: line.repeat }) : -1;
      if (j === -1 || shardOf[j] + 1 !== part.index) {
        throw new RagbenchError(
          "data",
          `"${path}" line ${number} (system ${JSON.stringify(line.system)}, question ${
            JSON.stringify(line.question_id)
          }, repeat ${line.repeat}) is ${
            j === -1 ? "not a job of this run" : `a job of shard ${shardOf[j] + 1}/${count}`
          }, not of shard ${part.index}/${count}: the folder holds results of another run. ` +
            "Merge only folders that `ragbench run --shard` wrote, unchanged.",
        );
      }
      if (seen.has(j)) lines.duplicates++;
      seen.add(j);
      lines.partOf[j] = p;
      lines.offsetOf[j] = offset;
      lines.lengthOf[j] = bytes.length;
      lines.trec[j] = trecPart(line);
    };
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (error) {
      throw new RagbenchError(
        "io",
        `Cannot read "${path}": ${describeFsError(error)}. Is "${part.dir}" a shard's run folder?`,
        { cause: error },
      );
    }
    eachFileLine(file, path, take);
    lines.found.set(part.index, seen.size);
  });
  return lines;
}

/** The lines' bytes in job order, each followed by a newline (files opened one at a time). */
export function* mergedLineBytes(lines: ShardLines): Generator<Uint8Array> {
  const files = new Map<number, Deno.FsFile>();
  const newline = new Uint8Array([10]);
  try {
    for (let j = 0; j < lines.partOf.length; j++) {
      const p = lines.partOf[j];
      if (p === -1) continue;
      let file = files.get(p);
      if (file === undefined) {
        file = Deno.openSync(join(lines.dirs[p], RUN_FILES.results), { read: true });
        files.set(p, file);
      }
      const bytes = new Uint8Array(lines.lengthOf[j]);
      file.seekSync(lines.offsetOf[j], Deno.SeekMode.Start);
      let at = 0;
      while (at < bytes.length) {
        const n = file.readSync(bytes.subarray(at));
        if (n === null) {
          throw new RagbenchError(
            "io",
            `"${join(lines.dirs[p], RUN_FILES.results)}" changed while it was merged.`,
          );
        }
        at += n;
      }
      yield bytes;
      yield newline;
    }
  } finally {
    for (const file of files.values()) file.close();
  }
}

/** The lines the TREC run files are written from, in job order. */
export function trecLines(lines: ShardLines): QuestionResult[] {
  return lines.trec.filter((l): l is QuestionResult => l !== undefined);
}

/** What `writeTrecFiles` reads of a line: its ids, whether it retrieved, its ranking with scores. */
function trecPart(line: QuestionResult): QuestionResult {
  // Not the whole retrieval block: its metrics are most of a line's memory, and a merge of a
  // million lines holds one of these a line.
  const { retrieved, ranking, scores } = line.retrieval;
  return {
    system: line.system,
    question_id: line.question_id,
    repeat: line.repeat,
    retrieval: { retrieved, ranking, scores },
  } as unknown as QuestionResult;
}
