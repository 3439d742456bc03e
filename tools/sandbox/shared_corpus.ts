/**
 * The corpus as the sandbox worker gets it: the documents' ids, titles and
 * sources packed into three strings (a `postMessage` of three strings costs
 * next to nothing, of 100,000 small objects ~30 MB of garbage and heap on
 * both sides), the tables (copied), and the documents' text in shared
 * memory (lib/grep/shared_text.ts), written once by the main thread and read
 * by the worker where it is. The worker's `Document`s read their fields out
 * of these when a tool asks (`text` is decoded then); `corpus_grep` scans the
 * text directly.
 *
 * @module
 */

import { documentText, type SharedText } from "../../lib/grep/shared_text.ts";
import { SharedTextBuilder } from "../../lib/grep/shared_text_builder.ts";
import { useSharedText } from "../../lib/grep/line_store.ts";
import type { Corpus, Document, Table } from "../../lib/types.ts";
import { nextTurn } from "../../lib/util/yielder.ts";

/** One string field of every document, packed: document d's is `text.slice(end[d - 1], end[d])`. */
export interface PackedField {
  text: string;
  /** Where each document's value ends in `text` (the previous one's end is where it starts). */
  end: Uint32Array;
}

/** What the main thread posts to the worker (the `corpus` message). */
export interface SharedCorpus {
  ids: PackedField;
  titles: PackedField;
  sources: PackedField;
  tables: Table[];
  /** The documents' text. */
  text: SharedText;
}

/** Options of {@link shareCorpus}. */
export interface ShareOptions {
  /** Stops the writing between slices (the promise rejects with its reason). */
  signal?: AbortSignal;
  /** Milliseconds of work per slice (default 8). */
  sliceMs?: number;
  /**
   * Resolves when the thread may take its next slice. The worker's host
   * passes one that waits while a call is in flight to the worker, so the
   * main thread, writing no text meanwhile, leaves the CPU to the worker and
   * is free to take its reply. At least one slice runs after each wait, so
   * calls that follow each other closely slow the writing but never stop it.
   */
  idle?: () => Promise<void>;
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
  options: ShareOptions = {},
): Promise<SharedCorpus> {
  const sliceMs = options.sliceMs ?? 8;
  // Made at the first slice: even its few shared arrays are an allocation that can bring on the
  // main thread's pending garbage collection while a call's reply is due.
  let builder: SharedTextBuilder | null = null;
  while (true) {
    // Never in the caller's turn: what it has to answer first (a tool's reply) goes first.
    await nextTurn();
    if (options.idle) {
      await options.idle();
      // The reply's taker runs before the slice (it may send the next call: that one waits).
      await nextTurn();
    }
    options.signal?.throwIfAborted();
    builder ??= new SharedTextBuilder(corpus.documents);
    if (builder.step(performance.now() + sliceMs)) break;
  }
  return {
    ids: pack(corpus.documents, (d) => d.id),
    titles: pack(corpus.documents, (d) => d.title),
    sources: pack(corpus.documents, (d) => d.source),
    tables: corpus.tables,
    text: builder.result(),
  };
}

function pack(documents: readonly Document[], field: (d: Document) => string): PackedField {
  const end = new Uint32Array(documents.length);
  const parts: string[] = new Array(documents.length);
  let at = 0;
  for (let d = 0; d < documents.length; d++) {
    parts[d] = field(documents[d]);
    at += parts[d].length;
    end[d] = at;
  }
  return { text: parts.join(""), end };
}

function unpack(field: PackedField, d: number): string {
  return field.text.slice(d === 0 ? 0 : field.end[d - 1], field.end[d]);
}

/** A document of the worker's corpus: its fields are read out of the shared corpus when asked for. */
class SharedDocument implements Document {
  readonly #corpus: SharedCorpus;
  readonly #index: number;

  constructor(corpus: SharedCorpus, index: number) {
    this.#corpus = corpus;
    this.#index = index;
  }

  get id(): string {
    return unpack(this.#corpus.ids, this.#index);
  }

  get title(): string {
    return unpack(this.#corpus.titles, this.#index);
  }

  get source(): string {
    return unpack(this.#corpus.sources, this.#index);
  }

  get text(): string {
    return documentText(this.#corpus.text, this.#index);
  }
}

/** The worker's corpus over a {@link SharedCorpus}; `corpus_grep`'s line store is built over its text. */
export function corpusFromShared(shared: SharedCorpus): Corpus {
  const documents: Document[] = Array.from(
    { length: shared.text.documents },
    (_, i) => new SharedDocument(shared, i),
  );
  const corpus = { documents, tables: shared.tables };
  useSharedText(corpus, shared.text);
  return corpus;
}
