/**
 * Messages for characters outside printable ASCII. The calculator reads
 * ASCII only, so a Unicode digit or a look-alike operator (− × ÷ ＋) is
 * refused with its code point and the ASCII to type instead, rather than
 * being guessed at.
 *
 * @module
 */

import { at } from "./calc_error.ts";

interface LookAlike {
  name: string;
  /** What to write instead, shown in quotes. */
  ascii: string;
}

const LOOK_ALIKES = new Map<number, LookAlike>([
  [0x2212, { name: "MINUS SIGN", ascii: "-" }],
  [0x2010, { name: "HYPHEN", ascii: "-" }],
  [0x2011, { name: "NON-BREAKING HYPHEN", ascii: "-" }],
  [0x2012, { name: "FIGURE DASH", ascii: "-" }],
  [0x2013, { name: "EN DASH", ascii: "-" }],
  [0x2014, { name: "EM DASH", ascii: "-" }],
  [0xfe63, { name: "SMALL HYPHEN-MINUS", ascii: "-" }],
  [0xff0d, { name: "FULLWIDTH HYPHEN-MINUS", ascii: "-" }],
  [0xff0b, { name: "FULLWIDTH PLUS SIGN", ascii: "+" }],
  [0xfe62, { name: "SMALL PLUS SIGN", ascii: "+" }],
  [0x00d7, { name: "MULTIPLICATION SIGN", ascii: "*" }],
  [0x2715, { name: "MULTIPLICATION X", ascii: "*" }],
  [0x2716, { name: "HEAVY MULTIPLICATION X", ascii: "*" }],
  [0x22c5, { name: "DOT OPERATOR", ascii: "*" }],
  [0x00b7, { name: "MIDDLE DOT", ascii: "*" }],
  [0x2219, { name: "BULLET OPERATOR", ascii: "*" }],
  [0x2217, { name: "ASTERISK OPERATOR", ascii: "*" }],
  [0xff0a, { name: "FULLWIDTH ASTERISK", ascii: "*" }],
  [0x00f7, { name: "DIVISION SIGN", ascii: "/" }],
  [0x2215, { name: "DIVISION SLASH", ascii: "/" }],
  [0x2044, { name: "FRACTION SLASH", ascii: "/" }],
  [0xff0f, { name: "FULLWIDTH SOLIDUS", ascii: "/" }],
  [0xff05, { name: "FULLWIDTH PERCENT SIGN", ascii: "%" }],
  [0x066a, { name: "ARABIC PERCENT SIGN", ascii: "%" }],
  [0xff3e, { name: "FULLWIDTH CIRCUMFLEX ACCENT", ascii: "**" }],
  [0xff08, { name: "FULLWIDTH LEFT PARENTHESIS", ascii: "(" }],
  [0xff09, { name: "FULLWIDTH RIGHT PARENTHESIS", ascii: ")" }],
  [0xff3b, { name: "FULLWIDTH LEFT SQUARE BRACKET", ascii: "[" }],
  [0xff3d, { name: "FULLWIDTH RIGHT SQUARE BRACKET", ascii: "]" }],
  [0xff0c, { name: "FULLWIDTH COMMA", ascii: "," }],
  [0x066b, { name: "ARABIC DECIMAL SEPARATOR", ascii: "." }],
  [0xff0e, { name: "FULLWIDTH FULL STOP", ascii: "." }],
  [0x03c0, { name: "GREEK SMALL LETTER PI", ascii: "pi" }],
  [0x221a, { name: "SQUARE ROOT", ascii: "x ** 0.5" }],
]);

const SPACES = new Map<number, string>([
  [0x00a0, "NO-BREAK SPACE"],
  [0x2007, "FIGURE SPACE"],
  [0x2009, "THIN SPACE"],
  [0x202f, "NARROW NO-BREAK SPACE"],
  [0x3000, "IDEOGRAPHIC SPACE"],
  [0x200b, "ZERO WIDTH SPACE"],
  [0xfeff, "ZERO WIDTH NO-BREAK SPACE"],
]);

const SEPARATORS = new Map<number, string>([
  [0x066c, "ARABIC THOUSANDS SEPARATOR"],
  [0x2019, "RIGHT SINGLE QUOTATION MARK"],
]);

const SUPERSCRIPTS = new Set([0xb2, 0xb3, 0xb9, 0x2070, ...range(0x2074, 0x2079)]);

const ASCII_HINT = "Use plain ASCII: digits 0-9, + - * / // % ** ^ ( ) [ ] , . and spaces.";

/**
 * Why the character at code point `cp` cannot be used and what to type
 * instead; the message names the character, its U+ code and its 0-based
 * offset `pos` (shown 1-based).
 */
export function describeForeignCharacter(cp: number, pos: number): string {
  const where = at(pos);
  const char = String.fromCodePoint(cp);
  const code = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  const lookAlike = LOOK_ALIKES.get(cp);
  if (lookAlike) {
    return `'${char}' (${code} ${lookAlike.name})${where} is not supported: write the ASCII ` +
      `'${lookAlike.ascii}' instead.`;
  }
  const space = SPACES.get(cp);
  if (space) return `${code} ${space}${where} is not supported: use an ordinary space.`;
  const separator = SEPARATORS.get(cp);
  if (separator) {
    return `'${char}' (${code} ${separator})${where} is not supported: write numbers without ` +
      `thousands separators (1000000 or 1_000_000).`;
  }
  if (SUPERSCRIPTS.has(cp)) {
    const digit = char.normalize("NFKC");
    return `Superscript '${char}' (${code})${where} is not supported: write powers with **, e.g. ` +
      `x ** ${digit}.`;
  }
  if (/\p{Nd}/u.test(char)) {
    return `Unicode digit '${char}' (${code})${where} is not supported: write ASCII digits 0-9 ` +
      `(this one is ${decimalDigitValue(cp)}).`;
  }
  const folded = char.normalize("NFKC").replaceAll("\u2044", "/");
  if (folded !== char && /^[\x20-\x7e]+$/.test(folded)) {
    const what = /\p{N}/u.test(char) ? "Unicode number" : "Character";
    return `${what} '${char}' (${code})${where} is not supported: write the ASCII '${folded}' instead.`;
  }
  if (/\p{N}/u.test(char)) {
    return `Unicode number '${char}' (${code})${where} is not supported: write it with ASCII digits ` +
      `0-9.`;
  }
  if (/\p{L}/u.test(char)) {
    return `Letter '${char}' (${code})${where} is not supported: the only names are pi and e. ` +
      ASCII_HINT;
  }
  if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0)) {
    return `Control character ${code}${where} is not supported. ${ASCII_HINT}`;
  }
  return `Character '${char}' (${code})${where} is not supported. ${ASCII_HINT}`;
}

/**
 * The value 0-9 of a Unicode decimal digit. Unicode assigns decimal digits
 * only in runs 0..9 of consecutive code points, so the value is the distance
 * from the start of the run, modulo 10.
 */
function decimalDigitValue(cp: number): number {
  let start = cp;
  while (start > 0 && /\p{Nd}/u.test(String.fromCodePoint(start - 1))) start--;
  return (cp - start) % 10;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
