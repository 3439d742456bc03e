/**
 * A passage's text as a model is shown it, by the `search` tool and in a
 * `rag` prompt: its lines kept, so a Markdown table stays one row a line
 * and a code block keeps its lines and indentation. Only what carries no
 * meaning goes: each line's trailing whitespace, blank lines at either end,
 * and blank lines in a row beyond the first. Line ends are read as `\n`,
 * `\r\n`, `\r`, form feed, vertical tab, U+2028 and U+2029.
 *
 * @module
 */

/** `text` by the rule in the module doc; linear in its length. */
export function shownText(text: string): string {
  const lines: string[] = [];
  let blank = 0;
  let start = 0;
  const n = text.length;
  const take = (end: number) => {
    let last = end;
    while (last > start && isBlankChar(text.charCodeAt(last - 1))) last--;
    const line = text.slice(start, last);
    if (line === "") {
      if (lines.length > 0 && ++blank === 1) lines.push("");
    } else {
      blank = 0;
      lines.push(line);
    }
  };
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || c === 11 || c === 12 || c === 0x2028 || c === 0x2029) {
      take(i);
      if (c === 13 && i + 1 < n && text.charCodeAt(i + 1) === 10) i++;
      start = i + 1;
    }
  }
  take(n);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  // Leading whitespace of the first line is not indentation of anything shown.
  if (lines.length > 0) lines[0] = lines[0].trimStart();
  return lines.join("\n");
}

/** Space, tab and the other whitespace that is not a line end. */
function isBlankChar(c: number): boolean {
  return c === 32 || c === 9 || c === 0xa0 || c === 0xfeff || c === 0x1680 || c === 0x3000 ||
    (c >= 0x2000 && c <= 0x200a) || c === 0x202f || c === 0x205f || c < 32 && c !== 10 &&
      c !== 13;
}
