/**
 * A real collection for the speed benchmarks, beside the synthetic one
 * (synthetic_corpus.ts): Cranfield, NPL or MED from `../shared/datasets`
 * (BEIR `corpus.jsonl`, read where it is: never copied into the
 * repository), its documents repeated until the text reaches a size, so a
 * benchmark runs at the same scale on text of real statistics — English
 * words, long one-line abstracts (Cranfield's average ~900 characters, some
 * over 2,000), a Zipf tail of real terms — instead of made-up syllables.
 * Copy k of document "12" is "12~k".
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Corpus, Document } from "../lib/types.ts";

/** The collections there are, by name. */
export const REAL_COLLECTIONS = ["cranfield", "npl", "med"] as const;
/** One of {@link REAL_COLLECTIONS}. */
export type RealCollection = (typeof REAL_COLLECTIONS)[number];

/** Where the collections are unless a benchmark is told otherwise (`--datasets`). */
export const DEFAULT_DATASETS = fileURLToPath(new URL("../../shared/datasets/", import.meta.url));

/** A real collection, repeated. */
export interface RealCorpus {
  name: RealCollection;
  corpus: Corpus;
  /** Times the collection was repeated. */
  copies: number;
  /** Documents of one copy. */
  documents: number;
}

/**
 * Reads collection `name` and repeats it until its text holds at least
 * `chars` characters (at least once). Returns null, with the reason, when
 * the collection is not there, so a benchmark can skip it with a message.
 */
export async function realCorpus(
  name: RealCollection,
  options: { chars: number; datasets?: string },
): Promise<RealCorpus | { missing: string }> {
  const path = join(options.datasets ?? DEFAULT_DATASETS, name, "corpus.jsonl");
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    return { missing: `${path}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const originals: Document[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const row = JSON.parse(line) as { _id: string; title?: string; text: string };
    originals.push({ id: row._id, title: row.title ?? "", text: row.text, source: name });
  }
  const perCopy = originals.reduce((n, d) => n + d.text.length, 0);
  const copies = Math.max(1, Math.ceil(options.chars / Math.max(perCopy, 1)));
  const documents: Document[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const doc of originals) documents.push({ ...doc, id: `${doc.id}~${copy}` });
  }
  return { name, corpus: { documents, tables: [] }, copies, documents: originals.length };
}

/**
 * The collection's own queries (`queries.jsonl`), `count` of them, starting
 * again from the first when it has fewer; empty when the file is missing.
 */
export async function realQueries(
  name: RealCollection,
  count: number,
  options: { datasets?: string } = {},
): Promise<string[]> {
  const path = join(options.datasets ?? DEFAULT_DATASETS, name, "queries.jsonl");
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return [];
  }
  const all = text.split("\n").filter((line) => line.trim() !== "").map((line) =>
    (JSON.parse(line) as { text: string }).text
  );
  return Array.from({ length: all.length === 0 ? 0 : count }, (_, i) => all[i % all.length]);
}

/**
 * The corpora of a two-corpus benchmark, by its `--corpus` option: `both`
 * (default: the synthetic one and `real`), `synthetic`, or a real
 * collection's name.
 */
export function corporaOf(
  option: string | undefined,
  real: RealCollection = "cranfield",
): string[] {
  const value = option ?? "both";
  if (value === "both") return ["synthetic", real];
  if (value === "synthetic" || (REAL_COLLECTIONS as readonly string[]).includes(value)) {
    return [value];
  }
  throw new RangeError(
    `--corpus must be both, synthetic or one of ${REAL_COLLECTIONS.join(", ")}, got "${value}".`,
  );
}
