/**
 * Strict text decoding for input files: invalid UTF-8 is an error that says
 * where it is, never text with U+FFFD in it; and the NUL-byte test that tells
 * a binary file from a text file.
 *
 * @module
 */

/** Bytes at the start of a file looked at by {@link looksBinary}. */
export const BINARY_SNIFF_BYTES = 8192;

/** Where a byte sequence stops being UTF-8. */
export interface Utf8Problem {
  /** Offset of the first byte of the invalid sequence, from 0. */
  offset: number;
  /** Line it stands on, from 1 (counting `\n` bytes before it). */
  line: number;
}

/**
 * UTF-8 bytes too many for one JavaScript string: V8 refuses a string past
 * 2^29 − 24 characters (~536 million), so such a file must be read in pieces.
 */
export interface TooLongText {
  tooLong: true;
  bytes: number;
}

/**
 * The text of `bytes` (a leading BOM dropped), where it is not UTF-8, or that
 * it is too long. `decode` is the strict decoder (a seam for tests: a real
 * too-long text takes ~1.6 GB to try).
 */
export function decodeUtf8(
  bytes: Uint8Array,
  decode: (bytes: Uint8Array) => string = strictDecode,
): { text: string } | Utf8Problem | TooLongText {
  try {
    return { text: decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    // All of it is UTF-8: the decoder failed for the string's length.
    if (offset === bytes.length) return { tooLong: true, bytes: bytes.length };
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
    return { offset, line };
  }
}

/**
 * What is wrong with a file's text, and what to do: save it as UTF-8, or
 * (for text too long to be one string) `tooLongAdvice`.
 */
export function describeTextProblem(
  problem: Utf8Problem | TooLongText,
  tooLongAdvice: string,
): string {
  if ("tooLong" in problem) {
    const mb = Math.round(problem.bytes / 1e6);
    return `at ${mb} MB it holds more text than one string can (about 536 million characters); ${tooLongAdvice}`;
  }
  return `${describeUtf8Problem(problem)}; save it as UTF-8`;
}

function strictDecode(bytes: Uint8Array): string {
  return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
}

/** True when a NUL byte stands in the first {@link BINARY_SNIFF_BYTES} bytes (as git and grep judge). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * Offset of the first byte that starts an invalid UTF-8 sequence (overlong
 * forms, surrogates, code points past U+10FFFF and truncated sequences are
 * invalid), or `bytes.length` when there is none.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let low = 0x80;
    let high = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) low = 0xa0;
      if (b === 0xed) high = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) low = 0x90;
      if (b === 0xf4) high = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      const lo = k === 1 ? low : 0x80;
      const hi = k === 1 ? high : 0xbf;
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += need + 1;
  }
  return n;
}

/** `byte 12 (line 3)`: where a problem stands, for messages. */
export function describeUtf8Problem(problem: Utf8Problem): string {
  return `it is not valid UTF-8 (byte ${problem.offset}, line ${problem.line})`;
}
