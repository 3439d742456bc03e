/**
 * The sorted rewrite of a results file at the end of `ragbench run`: the
 * lines in a fixed order (system in config order, question in file order,
 * repeat; lines of systems or questions the run does not have after all
 * others, in the order they came), each system × question × repeat once
 * (the first line of a job wins, as `--resume` takes them).
 *
 * No line is held: one streamed pass records, per line, its place in the
 * file and its sort key (a few dozen bytes a line, in typed arrays), the
 * places are sorted, and the lines are copied in that order into a
 * temporary file that replaces the original by a rename. A failure at any
 * point (a write error, a file changed meanwhile) leaves the original file
 * as it was: nothing the run finished is lost.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import { eachLine } from "../util/byte_lines.ts";
import { describeFsError, writeChunksAtomic } from "../util/fs.ts";

/** The order of a run's jobs: its systems (config order) and questions (file order). */
export interface ResultOrder {
  systems: readonly string[];
  questions: readonly string[];
}

/** What the rewrite found. */
export interface SortedRewrite {
  /** Lines in the rewritten file. */
  lines: number;
  /** Lines dropped: a later line for a job that had one already. */
  duplicates: number;
  /** False when the file was in order already and had no duplicate (it was left untouched). */
  rewritten: boolean;
}

/** How the rewrite writes (tests inject a failing writer). */
export interface SortedRewriteOptions {
  /** Writes the chunks to `path` atomically; default `writeChunksAtomic`. */
  write?: (path: string, chunks: Iterable<Uint8Array>) => Promise<void>;
}

/** Growable columns of numbers, one row a line. */
class Column<T extends Float64Array | Int32Array> {
  #make: (n: number) => T;
  data: T;
  constructor(make: (n: number) => T) {
    this.#make = make;
    this.data = make(1024);
  }
  set(i: number, value: number): void {
    if (i >= this.data.length) {
      const grown = this.#make(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[i] = value;
  }
}

/**
 * Rewrites the results file at `path` in the order of `order`.
 *
 * @throws {RagbenchError} ("io") naming the file when it cannot be read or
 *   written, or changed while it was rewritten; ("data") naming the first
 *   line that is not a JSON object with a system, question id and repeat.
 *   The file is then left as it was.
 */
export async function rewriteSorted(
  path: string,
  order: ResultOrder,
  options: SortedRewriteOptions = {},
): Promise<SortedRewrite> {
  const systems = new Map(order.systems.map((name, i) => [name, i]));
  const questions = new Map(order.questions.map((id, i) => [id, i]));
  const offsets = new Column((n) => new Float64Array(n));
  const lengths = new Column((n) => new Float64Array(n));
  // A known line's place in the order; −1 for a line of a system or question not in the run.
  const sys = new Column((n) => new Int32Array(n));
  const qs = new Column((n) => new Int32Array(n));
  const reps = new Column((n) => new Float64Array(n));
  const unknownSeen = new Set<string>();
  let count = 0;
  let size = 0;
  const decoder = new TextDecoder();
  const file = openRead(path);
  try {
    const read = eachLine(file, (bytes, offset, number) => {
      const text = decoder.decode(bytes);
      if (text.trim() === "") return;
      const key = jobOf(text, path, number);
      const s = systems.get(key.system);
      const q = questions.get(key.question_id);
      if (s === undefined || q === undefined) {
        const job = JSON.stringify([key.system, key.question_id, key.repeat]);
        // A repeated unknown line is dropped here; known ones once sorted (they are adjacent then).
        if (unknownSeen.has(job)) {
          sys.set(count, -2);
        } else {
          unknownSeen.add(job);
          sys.set(count, -1);
        }
        qs.set(count, -1);
      } else {
        sys.set(count, s);
        qs.set(count, q);
      }
      reps.set(count, key.repeat);
      offsets.set(count, offset);
      lengths.set(count, bytes.length + 1);
      count++;
    });
    size = read.end;
  } catch (error) {
    if (error instanceof RagbenchError) throw error;
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  } finally {
    file.close();
  }
  const s = sys.data, q = qs.data, r = reps.data;
  const placed = new Uint32Array(count);
  for (let i = 0; i < count; i++) placed[i] = i;
  // Known lines by (system, question, repeat), then unknown ones; ties keep file order.
  placed.sort((a, b) => {
    const ka = s[a] < 0, kb = s[b] < 0;
    if (ka || kb) return ka === kb ? a - b : ka ? 1 : -1;
    return s[a] - s[b] || q[a] - q[b] || r[a] - r[b] || a - b;
  });
  const kept: number[] = [];
  let duplicates = 0;
  let inOrder = true;
  for (let i = 0; i < count; i++) {
    const line = placed[i];
    const previous = kept.length ? kept[kept.length - 1] : -1;
    const repeated = s[line] === -2 ||
      (s[line] >= 0 && previous >= 0 && s[previous] === s[line] && q[previous] === q[line] &&
        r[previous] === r[line]);
    if (repeated) {
      duplicates++;
      inOrder = false;
      continue;
    }
    if (line !== kept.length) inOrder = false;
    kept.push(line);
  }
  if (inOrder) return { lines: count, duplicates: 0, rewritten: false };
  const write = options.write ?? writeChunksAtomic;
  await write(
    path,
    copiedLines(path, kept, { offsets: offsets.data, lengths: lengths.data, size }),
  );
  return { lines: kept.length, duplicates, rewritten: true };
}

/** The lines at `order`'s places, read one at a time from the file. */
function* copiedLines(
  path: string,
  order: readonly number[],
  places: { offsets: Float64Array; lengths: Float64Array; size: number },
): Generator<Uint8Array> {
  const file = openRead(path);
  try {
    if (file.statSync().size !== places.size) throw changed(path, places.size);
    let buffer = new Uint8Array(1 << 16);
    for (const line of order) {
      const length = places.lengths[line];
      if (buffer.length < length) buffer = new Uint8Array(length * 2);
      const bytes = buffer.subarray(0, length);
      file.seekSync(places.offsets[line], Deno.SeekMode.Start);
      let at = 0;
      while (at < length) {
        const n = file.readSync(bytes.subarray(at));
        if (n === null || n === 0) break;
        at += n;
      }
      if (at !== length || bytes[length - 1] !== 0x0a) throw changed(path, places.offsets[line]);
      // Consumed (copied or written) before the next line is asked for.
      yield bytes;
    }
  } finally {
    file.close();
  }
}

function changed(path: string, at: number): RagbenchError {
  return new RagbenchError(
    "io",
    `"${path}" changed while it was being sorted (at byte ${at}), so it was left as it is.`,
  );
}

function openRead(path: string): Deno.FsFile {
  try {
    return Deno.openSync(path, { read: true });
  } catch (error) {
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
}

/** The job a line is of; a line that names none is refused. */
function jobOf(
  text: string,
  path: string,
  number: number,
): { system: string; question_id: string; repeat: number } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = null;
  }
  const line = value as { system?: unknown; question_id?: unknown; repeat?: unknown } | null;
  if (
    line === null || typeof line !== "object" || typeof line.system !== "string" ||
    typeof line.question_id !== "string" || typeof line.repeat !== "number"
  ) {
    throw new RagbenchError(
      "data",
      `"${path}" line ${number} is not a result line (JSON with a system, question_id and repeat), so the file was left unsorted; move the file away or fix the line.`,
    );
  }
  return { system: line.system, question_id: line.question_id, repeat: line.repeat };
}
