/**
 * The corpus as the sandbox worker gets it: each document's id, title and
 * source (copied: small), the tables (copied), and the documents' text in
 * shared memory (lib/grep/shared_text.ts), written once by the main thread
 * and read by the worker where it is. The worker's `Document`s decode their
 * text from it when a tool reads `text`; `corpus_grep` scans it directly.
 *
 * @module
 */

import { documentText, type SharedText, SharedTextBuilder } from "../../lib/grep/shared_text.ts";
import { useSharedText } from "../../lib/grep/line_store.ts";
import type { Corpus, Document, Table } from "../../lib/types.ts";
import { nextTurn } from "../../lib/util/yielder.ts";

/** What the main thread posts to the worker (the `corpus` message). */
export interface SharedCorpus {
  /** Each document's id, title and source, in corpus order. */
  documents: Array<{ id: string; title: string; source: string }>;
  tables: Table[];
  /** The documents' text. */
  text: SharedText;
}

/**
 * Writes `corpus`'s text into shared memory a slice of about `sliceMs` (8) at a
 * time, letting the event loop run between slices (the main thread keeps
 * serving the systems that do not need the corpus), and returns what to post
 * to the worker.
 *
 * @throws {RangeError} when a segment does not fit in a wasm32 memory.
 */
export async function shareCorpus(
  corpus: Corpus,
  options: { signal?: AbortSignal; sliceMs?: number } = {},
): Promise<SharedCorpus> {
  const sliceMs = options.sliceMs ?? 8;
  const builder = new SharedTextBuilder(corpus.documents);
  while (!builder.step(performance.now() + sliceMs)) {
    await nextTurn();
    options.signal?.throwIfAborted();
  }
  return {
    documents: corpus.documents.map((d) => ({ id: d.id, title: d.title, source: d.source })),
    tables: corpus.tables,
    text: builder.result(),
  };
}

/** A document of the worker's corpus: its text is read out of the shared memory when asked for. */
class SharedDocument implements Document {
  readonly id: string;
  readonly title: string;
  readonly source: string;
  readonly #text: SharedText;
  readonly #index: number;

  constructor(
    meta: { id: string; title: string; source: string },
    text: SharedText,
    index: number,
  ) {
    this.id = meta.id;
    this.title = meta.title;
    this.source = meta.source;
    this.#text = text;
    this.#index = index;
  }

  get text(): string {
    return documentText(this.#text, this.#index);
  }
}

/** The worker's corpus over a {@link SharedCorpus}; `corpus_grep`'s line store is built over its text. */
export function corpusFromShared(shared: SharedCorpus): Corpus {
  const documents: Document[] = shared.documents.map((meta, i) =>
    new SharedDocument(meta, shared.text, i)
  );
  const corpus = { documents, tables: shared.tables };
  useSharedText(corpus, shared.text);
  return corpus;
}
