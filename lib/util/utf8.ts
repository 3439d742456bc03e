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

/** The text of `bytes` (a leading BOM dropped), or where it is not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): { text: string } | Utf8Problem {
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    const offset = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 0x0a) line++;
    return { offset, line };
  }
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
