/**
 * One streamed reader of a JSON-lines file's values, for every reader that
 * does not need the line's bytes (`--resume`'s tally, `readJsonl`): the file
 * is never one string, and a long run's file can be larger than one string
 * may be.
 *
 * @module
 */

import { RagbenchError } from "../errors.ts";
import { describeFsError, eachFileLine } from "./fs.ts";

/**
 * Hands each complete line of the file at `path`, parsed, to `onValue`, in
 * order, holding none (a missing file has none). Blank lines are skipped; a
 * final line without its newline is dropped (and, with `repair`, cut from
 * the file). A {@link RagbenchError} `onValue` throws passes through as it is.
 *
 * @throws {RagbenchError} code "io" when the file cannot be read or repaired,
 *   "data" naming the first line that is not JSON.
 */
export function eachJsonlValue(
  path: string,
  onValue: (value: unknown) => void,
  options: { repair?: boolean } = {},
): void {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  }
  const decoder = new TextDecoder();
  const read = eachFileLine(file, path, (bytes, _offset, number) => {
    const text = decoder.decode(bytes);
    if (text.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new RagbenchError(
        "data",
        `"${path}" line ${number} is not valid JSON; move the file away or fix the line.`,
      );
    }
    onValue(value);
  });
  if (read.unfinished > 0 && options.repair) {
    try {
      Deno.truncateSync(path, read.end);
    } catch (error) {
      throw new RagbenchError(
        "io",
        `Cannot cut the unfinished last line from "${path}": ${describeFsError(error)}.`,
        { cause: error },
      );
    }
  }
}
