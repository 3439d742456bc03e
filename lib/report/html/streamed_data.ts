/**
 * The report's per-question data (`question_data.ts`) built from a results
 * file in two passes, so a run of a million lines never holds it: while the
 * reader's first pass goes over the file, {@link StreamedEmbedder} numbers
 * the systems and questions and notes where each kept line is (a few bytes a
 * line); when `report.html` is written, {@link StreamedEmbedder.chunks}
 * reads the file again and turns each line into its embedded JSON as it
 * passes, in the order and with the detail {@link LineEmbedder} gives the
 * same lines (a later line for the same job in the earlier one's place; rows
 * only past {@link FULL_DETAIL_CHARS}), so the page is byte for byte the
 * one built in memory.
 *
 * The file must not change between the passes (`run` holds its lock; a
 * `report` racing a writer is refused with a message saying to run it again).
 *
 * @module
 */

import { RagbenchError } from "../../errors.ts";
import { readResultLine } from "../../run/result_line.ts";
import { describeFsError } from "../../util/fs.ts";
import { textLineBatches } from "../../util/text_lines.ts";
import {
  CHUNK_LINES,
  EmbedCatalogue,
  type EmbeddedSource,
  embedLine,
  FULL_DETAIL_CHARS,
  type ReportLine,
} from "./question_data.ts";

/** A growable list of whole numbers under 2^32 (4 bytes each). */
class Uint32List {
  #items = new Uint32Array(1024);
  length = 0;

  get(i: number): number {
    return i < this.length ? this.#items[i] : 0;
  }

  set(i: number, value: number): void {
    if (i >= this.#items.length) {
      const grown = new Uint32Array(Math.max(this.#items.length * 2, i + 1));
      grown.set(this.#items);
      this.#items = grown;
    }
    this.#items[i] = value;
    if (i >= this.length) this.length = i + 1;
  }
}

/** What the file was when the first pass began: the second pass must find it the same. */
interface FileStamp {
  size: number;
  mtime: number | null;
}

function stampOf(info: Deno.FileInfo): FileStamp {
  return { size: info.size, mtime: info.mtime?.getTime() ?? null };
}

/**
 * The per-question data of the results file at `path`: {@link add} and
 * {@link replace} during the reader's pass (as {@link LineEmbedder}'s, with
 * the line's number in the file), then {@link chunks} reads the file again.
 */
export class StreamedEmbedder implements EmbeddedSource {
  #path: string;
  #catalogue: EmbedCatalogue;
  // Line number in the file -> 1 + the index of the line's place (0: not embedded).
  #placeOf = new Uint32List();
  // Index of a place -> number of the line that fills it last.
  #lastLine = new Uint32List();
  #stamp: FileStamp | null = null;

  /**
   * Data of the file at `path`, with `systems` numbered first in this order and `ndcg` the
   * nDCG each line carries (`ndcg@10`), as {@link LineEmbedder}'s constructor takes them.
   */
  constructor(path: string, systems: readonly string[] = [], options: { ndcg?: string } = {}) {
    this.#path = path;
    this.#catalogue = new EmbedCatalogue(systems, options);
  }

  /** The nDCG the lines carry (`ndcg@10`); null when no line added so far has it. */
  get ndcg(): string | null {
    return this.#catalogue.ndcg;
  }

  /** Lines added so far (places in the data). */
  get size(): number {
    return this.#lastLine.length;
  }

  /**
   * Notes the file as the first pass opens it (its size and modification
   * time), so the second pass can tell when it changed in between.
   */
  begin(info: Deno.FileInfo): void {
    this.#stamp = stampOf(info);
  }

  /** Adds the result at line `lineNumber` of the file; returns its index. */
  add(line: ReportLine, lineNumber: number): number {
    const index = this.#lastLine.length;
    this.replace(index, line, lineNumber);
    return index;
  }

  /** Puts the result at line `lineNumber` in place of the line at `index` (a later result). */
  replace(index: number, line: ReportLine, lineNumber: number): void {
    this.#catalogue.note(line);
    this.#placeOf.set(lineNumber, index + 1);
    this.#lastLine.set(index, lineNumber);
  }

  /**
   * The whole data as JSON text in pieces of {@link CHUNK_LINES} lines,
   * read from the file again.
   *
   * @throws {RagbenchError} ("io") when the file cannot be read or changed
   *   since the first pass.
   */
  *chunks(): Generator<string> {
    const path = this.#path;
    const size = this.size;
    const changed = () =>
      new RagbenchError(
        "io",
        `"${path}" changed while the report was being written (it is read twice: for the summaries, then for report.html). Write the report again once nothing writes to the run: ragbench report ${
          path.replace(/\/[^/]*$/, "")
        }`,
      );
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (error) {
      throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
        cause: error,
      });
    }
    try {
      const now = stampOf(file.statSync());
      if (this.#stamp && (now.size !== this.#stamp.size || now.mtime !== this.#stamp.mtime)) {
        throw changed();
      }
      yield this.#catalogue.head();
      // The JSON length of what fills each place so far: past FULL_DETAIL_CHARS, rows only.
      const lengths = new Uint32Array(size);
      let chars = 0;
      // Places whose last line came before an earlier place's (a later result for an earlier job).
      const waiting = new Map<number, string>();
      let next = 0;
      let batch: string[] = [];
      let number = 0;
      for (const lines of textLineBatches(file)) {
        for (const text of lines) {
          number++;
          const index = this.#placeOf.get(number) - 1;
          if (index < 0) continue;
          const line = readResultLine(text, path, number);
          if (line === null) throw changed();
          const json = embedLine(line, this.#catalogue.note(line), chars >= FULL_DETAIL_CHARS);
          chars += json.length - lengths[index];
          lengths[index] = json.length;
          if (this.#lastLine.get(index) !== number) continue;
          if (index !== next) {
            waiting.set(index, json);
            continue;
          }
          batch.push(json);
          next++;
          for (let w = waiting.get(next); w !== undefined; w = waiting.get(next)) {
            waiting.delete(next);
            batch.push(w);
            next++;
          }
          while (batch.length >= CHUNK_LINES) {
            yield (next - batch.length ? "," : "") + batch.slice(0, CHUNK_LINES).join(",");
            batch = batch.slice(CHUNK_LINES);
          }
        }
      }
      if (next !== size) throw changed();
      if (batch.length) yield (next - batch.length ? "," : "") + batch.join(",");
      yield "]}";
    } catch (error) {
      if (error instanceof RagbenchError) throw error;
      throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
        cause: error,
      });
    } finally {
      file.close();
    }
  }
}
