/**
 * How long is a default `search` call's output on ordinary Markdown pages?
 * The measurement behind the default of `tools.max_output_chars` (see the
 * README, "Tool output limits"): a default call (top_k 5 over the default
 * 200-word passages) must fit, or agents are shown fewer passages than `rag`.
 *
 *   deno run --allow-read scripts/measure_search_output.ts [PATH ...]
 *
 * Each PATH is a Markdown file or a folder searched for `.md` files (default:
 * this repository's README.md and docs/). Every file is cut into pages at its
 * level-2 headings (`## `), consecutive sections joined until a page holds at
 * least 2,000 characters (`scripts/markdown_pages.ts`), so a long manual
 * becomes pages of a few thousand characters, as a documentation site serves
 * them. The pages are indexed with every retriever default, and each page
 * asks three queries: its first heading's words and two 4-word windows of its
 * text (seeded, so the figures repeat). For each call it records the length of the untruncated output a
 * model would read, and prints the distribution and the share of calls longer
 * than each candidate limit.
 *
 * @module
 */

import { retrieverFor } from "../lib/retrieval/retriever.ts";
import { toolRulesSchema } from "../lib/config/schema.ts";
import { runSearch } from "../tools/search.ts";
import { createRng } from "../lib/util/prng.ts";
import { markdownPages, pageQueries } from "./markdown_pages.ts";

const LIMITS = [4000, 6000, 8000, 10_000, 12_000, 16_000];

function print(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const paths = Deno.args.length ? Deno.args : ["README.md", "docs"];
const documents = await markdownPages(paths);
if (documents.length === 0) {
  // deno-lint-ignore no-console
  console.error("no .md file found under", paths.join(", "));
  Deno.exit(2);
}
const retriever = retrieverFor({ documents, tables: [] });
const pageChars = documents.map((d) => d.text.length).sort((a, b) => a - b);
const passageChars = retriever.passages.map((p) => p.text.length).sort((a, b) => a - b);
const queries = pageQueries(documents, createRng(18));
const defaultLimit = toolRulesSchema.parse({}).max_output_chars;

const lengths: number[] = [];
const signal = new AbortController().signal;
for (const query of queries) {
  const result = await runSearch(retriever, { query, top_k: 5 }, signal);
  if (result.error || result.output === undefined) continue;
  lengths.push(result.output.length);
}
lengths.sort((a, b) => a - b);

print(`corpus: ${documents.length} pages from ${paths.join(", ")}`);
print(
  `page characters: median ${quantile(pageChars, 0.5)}, p90 ${quantile(pageChars, 0.9)}`,
);
print(
  `passages: ${passageChars.length}, characters median ${quantile(passageChars, 0.5)}, ` +
    `p95 ${quantile(passageChars, 0.95)}, max ${passageChars.at(-1)}`,
);
print(
  `default search output (top_k 5), ${lengths.length} calls: median ${
    quantile(lengths, 0.5)
  }, p90 ${quantile(lengths, 0.9)}, p99 ${quantile(lengths, 0.99)}, max ${lengths.at(-1)}`,
);
for (const limit of [...new Set([...LIMITS, defaultLimit])].sort((a, b) => a - b)) {
  const over = lengths.filter((n) => n > limit).length;
  print(
    `  longer than ${String(limit).padStart(6)}: ${String(over).padStart(4)} calls (${
      (100 * over / lengths.length).toFixed(1)
    } %)${limit === defaultLimit ? "  <- the default tools.max_output_chars" : ""}`,
  );
}
