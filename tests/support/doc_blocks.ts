/**
 * The fenced blocks of a Markdown page with the marker comment that says how
 * a test checks each (`<!-- check: ... -->` or `<!-- output: COMMAND -->` on
 * the last non-blank line before the fence), and the comparison of a
 * command's output with the output a page shows, apart from timing figures.
 *
 * @module
 */

/** One fenced block of a page. */
export interface DocBlock {
  /** The page, relative to the repository root. */
  page: string;
  /** Line of the opening fence (1-based). */
  line: number;
  /** The fence's language tag ("" when it has none). */
  lang: string;
  /** The block's text, without the fences (ends with a newline). */
  text: string;
  /** The marker before the block, e.g. `{kind: "check", value: "fragment"}`; null when none. */
  marker: { kind: "check" | "output"; value: string } | null;
}

const MARKER = /^<!-- (check|output): (.+?) -->$/;
const FENCE = /^(\s*)```(\S*)\s*$/;

/** Every fenced block of `markdown`, in order. */
export function docBlocks(page: string, markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  let lastText = "";
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (open === null) {
      if (lines[i].trim() !== "") lastText = lines[i].trim();
      continue;
    }
    const indent = open[1];
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && lines[j] !== `${indent}\`\`\``; j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    }
    const m = MARKER.exec(lastText);
    blocks.push({
      page,
      line: i + 1,
      lang: open[2],
      text: body.join("\n") + "\n",
      marker: m ? { kind: m[1] as "check" | "output", value: m[2] } : null,
    });
    lastText = "";
    i = j;
  }
  return blocks;
}

/** Shell command lines of a block: `\` continuations joined, comments and blank lines dropped. */
export function commandLines(text: string): string[] {
  return text.replace(/\\\n\s*/g, " ").split("\n").map((l) => l.replace(/\s+#\s.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** Masks the cells of table columns whose header names a time in ms (`p50 ms`). */
function maskTimeColumns(lines: string[]): string[] {
  const out = [...lines];
  for (let i = 1; i < out.length; i++) {
    if (!/^-+( +-+)+$/.test(out[i])) continue;
    const header = out[i - 1];
    const spans: Array<[number, number]> = [];
    for (const m of out[i].matchAll(/-+/g)) spans.push([m.index, m.index + m[0].length]);
    const timed = spans.filter(([a, b]) => /\bms\b/.test(header.slice(a, b)));
    for (let r = i + 1; r < out.length && out[r].trim() !== ""; r++) {
      let row = out[r];
      for (const [a, b] of timed) row = row.slice(0, a) + "#".repeat(b - a) + row.slice(b);
      out[r] = row;
    }
  }
  return out;
}

/**
 * Lines of a command's output (or of a page's output block) made comparable:
 * colour codes gone, the machine's paths replaced by the ones pages show,
 * timing figures masked, runs of spaces made one.
 */
export function comparableLines(
  text: string,
  paths: Array<[string, string]> = [],
): string[] {
  // deno-lint-ignore no-control-regex
  let t = text.replace(/\x1b\[[0-9;]*m/g, "");
  for (const [from, to] of paths) t = t.replaceAll(from, to);
  return maskTimeColumns(t.split("\n")).map((line) =>
    line
      .replace(/\b\d[\d.,]*\s?ms\b/g, "# ms")
      .replace(/\bin \d[\d.]* s\b/g, "in # s")
      // Which system is fastest is a timing figure too: the recommendation's
      // latency clause and its fastest pick are masked whole.
      // (A system name ends before the comma that may follow it: the comma stays either way.)
      .replace(/ and (has \S+ the p50 latency of [^\s,;]+|is slower than \S+ \(p50 [^)]*\))/, "")
      .replace(/(fastest not significantly below the best: ).*/, "$1#")
      .replace(/#{2,}/g, "#")
      .replace(/\s+/g, " ")
      .trim()
  );
}

/**
 * The first line of `expected` that `actual` lacks, in order (null when every
 * line is there). A line `...` skips any lines; `...` inside a line matches
 * any text.
 */
export function missingLine(expected: string[], actual: string[]): string | null {
  let at = 0;
  for (const line of expected) {
    if (line === "" || line === "...") continue;
    const pattern = new RegExp(
      `^${line.split("...").map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`,
    );
    while (at < actual.length && !pattern.test(actual[at])) at++;
    if (at === actual.length) return line;
    at++;
  }
  return null;
}
