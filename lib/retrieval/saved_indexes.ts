/**
 * Indexes built once: BM25 indexes and passage vectors saved in the cache
 * folder (`indexes-v1/<key>.idx`, `lib/cache/index_file.ts`) and loaded by
 * later runs, and by the other shards of a run, instead of being rebuilt.
 *
 * The key is a SHA-256 of everything that decides the index's contents:
 * - the units indexed, every one of them: id, document id, title and text
 *   (so a changed corpus, or chunking that cuts it differently, is a new
 *   key; nothing is trusted to a file's modification time or name);
 * - the settings of the kind: `k1`, `b`, the analysis and query repeats for
 *   BM25; the embedder's id (model, dimensions, prefixes) for vectors;
 * - what this ragbench's code does with them: the tokens of a fixed probe
 *   text under the analysis (a tokenizer that changed gives other tokens),
 *   and {@link SAVED_INDEX_VERSION}, raised when the build changes.
 *
 * A file that cannot be used (damaged, truncated, another format, or
 * arrays that do not fit the units) is reported with a warning and the
 * index is rebuilt and saved again: a saved index is used whole or not at
 * all. A loaded BM25 index is the built one's arrays, so it scores bit for
 * bit as a fresh build; loaded vectors go through the same `VectorIndex`
 * constructor as embedded ones.
 *
 * Building once across processes: the builder of a key holds an OS file
 * lock (`<key>.idx.lock`) while it builds and saves; another process asking
 * for the same key waits for it, then loads what it saved. Files are
 * written under a temporary name and renamed, so readers never see half a
 * file, and two writers of the same key (which write equal bytes) are safe.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { fingerprintUnits } from "./unit_fingerprint.ts";
import {
  indexPath,
  type IndexRead,
  readIndexFile,
  type SectionArray,
  writeIndexFile,
} from "../cache/index_file.ts";
import { lockIndex, lockIndexSync, type LockOptions } from "../cache/index_lock.ts";
import type { IndexCacheMode } from "../cache/index_cache_mode.ts";
import { VectorIndex } from "../dense/vector_index.ts";
import { Bm25Index, type Bm25Options } from "../lexical/bm25.ts";
import type { Passage } from "../lexical/passages.ts";
import { DEFAULT_ANALYSIS, tokenize } from "../lexical/tokenizer.ts";
import { canonicalJson } from "../util/canonical_json.ts";
import { VERSION } from "../version.ts";

/** Raised when what a build writes changes, so every older saved index becomes a miss. */
export const SAVED_INDEX_VERSION = 1;

/** How long a build waits for another process building the same index (ms) before building too. */
export const DEFAULT_LOCK_WAIT_MS = 30 * 60_000;

/** Text whose tokens join every BM25 key: a change in tokenising shows in them. */
const PROBE = "The U.S. e.g. Running runners' café NAÏVE 3.14 x-ray O'Neil's 1,000 km/h Ⅷ ﬁne I a";

/** Options of {@link SavedIndexes}. */
export interface SavedIndexesOptions {
  /** The cache folder (the indexes go in its `indexes-v1/`). */
  dir: string;
  mode: IndexCacheMode;
  /** Warnings (a saved index that could not be used or saved) and what was loaded or saved. */
  progress?: (line: string) => void;
  /** How long to wait for another process building the same index (default 30 min). */
  lockWaitMs?: number;
}

/** What one saved-index lookup did, for tests and progress. */
export type IndexOutcome = "loaded" | "built" | "built-and-saved";

/** The saved indexes of a cache folder (one per run; cheap). */
export class SavedIndexes {
  readonly dir: string;
  readonly mode: IndexCacheMode;
  readonly #progress: (line: string) => void;
  readonly #lockWaitMs: number;
  readonly #fingerprints = new WeakMap<object, string>();
  /** Every lookup's outcome, in order (tests count builds with it). */
  readonly outcomes: Array<{ kind: string; label: string; outcome: IndexOutcome }> = [];

  /** Indexes in `options.dir`. */
  constructor(options: SavedIndexesOptions) {
    this.dir = options.dir;
    this.mode = options.mode;
    this.#progress = options.progress ?? (() => {});
    this.#lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  }

  get #reads(): boolean {
    return this.mode === "read" || this.mode === "read-write";
  }

  get #writes(): boolean {
    return this.mode === "write" || this.mode === "read-write";
  }

  /**
   * The BM25 index of `units` with `options`: loaded when saved, else built
   * (and saved). `label` names it in warnings (`retriever "x"`, `... documents`).
   */
  bm25(units: readonly Passage[], options: Bm25Options, label: string): Bm25Index {
    const build = () => new Bm25Index(units, options);
    if (this.mode === "off") return build();
    const analysis = options.analysis ?? DEFAULT_ANALYSIS;
    const key = this.#key("bm25", units, {
      k1: options.k1 ?? null,
      b: options.b ?? null,
      analysis,
      queryRepeats: options.queryRepeats ?? null,
      probe: tokenize(PROBE, analysis),
    });
    const path = indexPath(this.dir, key);
    const load = (): Bm25Index | null => {
      const read = this.#read(path, "bm25", key, label);
      if (read === null) return null;
      try {
        return new Bm25Index(units, options, bm25Image(read));
      } catch (error) {
        this.#warnUnusable(label, path, (error as Error).message);
        return null;
      }
    };
    if (this.#reads) {
      const loaded = load();
      if (loaded !== null) return this.#done("bm25", label, "loaded", loaded);
    }
    if (!this.#writes) return this.#done("bm25", label, "built", build());
    using lock = lockIndexSync(path, this.#lockOptions());
    // Another process may have saved it while this one waited for the lock (or since the read).
    if (this.#reads && lock !== null && (lock.waited || this.#appeared(path))) {
      const loaded = load();
      if (loaded !== null) return this.#done("bm25", label, "loaded", loaded);
    }
    const index = build();
    const image = index.image();
    const saved = this.#save(path, label, {
      kind: "bm25",
      key,
      meta: { units: units.length, terms: image.idf.length, label },
      sections: new Map<string, SectionArray>([
        ["slots", image.dictionary.slots],
        ["pool", image.dictionary.pool],
        ["offsets", image.offsets],
        ["postings", image.postings],
        ["tfs", image.tfs],
        ["big_tf_keys", image.bigTfKeys],
        ["big_tf_values", image.bigTfValues],
        ["idf", image.idf],
        ["norm", image.norm],
        ["peak", image.peak],
      ]),
      count: image.dictionary.count,
    });
    return this.#done("bm25", label, saved ? "built-and-saved" : "built", index);
  }

  /**
   * The vector index of `units` embedded by `embedderId`: loaded when saved
   * (the normalised and quantised rows as built, so nothing is embedded,
   * looked up or normalised), else `build()` (and saved). The lock is waited
   * for without blocking, until `signal` aborts.
   */
  async vectors(
    units: readonly Passage[],
    embedderId: string,
    label: string,
    signal: AbortSignal,
    build: () => Promise<VectorIndex>,
  ): Promise<{ index: VectorIndex; outcome: IndexOutcome }> {
    if (this.mode === "off") return { index: await build(), outcome: "built" };
    const key = this.#key("vectors", units, { embedder: embedderId });
    const path = indexPath(this.dir, key);
    const load = (): VectorIndex | null => {
      const read = this.#read(path, "vectors", key, label);
      if (read === null) return null;
      try {
        const dimensions = read.meta.dimensions;
        if (typeof dimensions !== "number" || read.meta.units !== units.length) {
          throw new RangeError("its vectors do not fit the passages");
        }
        const s = read.sections;
        const image = {
          rowsF: section(s, "rows_f32", Float32Array),
          rowsI: section(s, "rows_i8", Int8Array),
          scale: section(s, "scale", Float64Array),
          residual: section(s, "residual", Float64Array),
          quantNorm: section(s, "quant_norm", Float64Array),
        };
        if (image.scale.length !== units.length) {
          throw new RangeError("its vectors do not fit the passages");
        }
        return new VectorIndex(new Float32Array(0), dimensions, image);
      } catch (error) {
        this.#warnUnusable(label, path, (error as Error).message);
        return null;
      }
    };
    const finish = (index: VectorIndex, outcome: IndexOutcome) => {
      this.#done("vectors", label, outcome, null);
      return { index, outcome };
    };
    if (this.#reads) {
      const loaded = load();
      if (loaded !== null) return finish(loaded, "loaded");
    }
    if (!this.#writes) return finish(await build(), "built");
    using lock = await lockIndex(path, this.#lockOptions(), signal);
    if (this.#reads && lock !== null && (lock.waited || this.#appeared(path))) {
      const loaded = load();
      if (loaded !== null) return finish(loaded, "loaded");
    }
    const index = await build();
    const image = index.image();
    const saved = this.#save(path, label, {
      kind: "vectors",
      key,
      meta: { units: units.length, dimensions: index.dimensions, embedder: embedderId, label },
      sections: new Map<string, SectionArray>([
        ["rows_f32", image.rowsF],
        ["rows_i8", image.rowsI],
        ["scale", image.scale],
        ["residual", image.residual],
        ["quant_norm", image.quantNorm],
      ]),
    });
    return finish(index, saved ? "built-and-saved" : "built");
  }

  /** Paths read as missing by this object (a file there now was saved since). */
  readonly #missing = new Set<string>();

  /** Whether `path` was missing when read and is there now. */
  #appeared(path: string): boolean {
    if (!this.#missing.has(path)) return false;
    try {
      Deno.statSync(path);
      return true;
    } catch {
      return false;
    }
  }

  #lockOptions(): LockOptions {
    return {
      waitMs: this.#lockWaitMs,
      onWait: (path) => this.#progress(`waiting for another ragbench building ${path}`),
    };
  }

  #done<T>(kind: string, label: string, outcome: IndexOutcome, value: T): T {
    this.outcomes.push({ kind, label, outcome });
    // The vector retriever says itself what it embedded or loaded.
    if (kind === "bm25" && outcome !== "built") {
      this.#progress(
        `${label}: BM25 index ${
          outcome === "loaded" ? "loaded from the cache folder" : "built and saved for later runs"
        }`,
      );
    } else if (kind === "vectors" && outcome === "built-and-saved") {
      this.#progress(`${label}: passage vectors saved for later runs`);
    }
    return value;
  }

  /** The file's contents when usable; null when missing or unusable (after warning). */
  #read(path: string, kind: string, key: string, label: string) {
    const read: IndexRead = readIndexFile(path, { kind, key });
    if (read.status === "ok") return read.contents;
    if (read.status === "bad") this.#warnUnusable(label, path, `it ${read.problem}`);
    else this.#missing.add(path);
    return null;
  }

  #warnUnusable(label: string, path: string, problem: string): void {
    this.#progress(
      `warning: the saved index of ${label} (${path}) cannot be used: ${problem}; ` +
        (this.#writes ? "rebuilding and saving it again." : "rebuilding it."),
    );
  }

  /** Saves; false (after a warning) when the folder cannot be written. */
  #save(
    path: string,
    label: string,
    contents: Parameters<typeof writeIndexFile>[1] & { count?: number },
  ): boolean {
    const { count, ...file } = contents;
    if (count !== undefined) file.meta = { ...file.meta, table_count: count };
    try {
      writeIndexFile(path, file);
      return true;
    } catch (error) {
      this.#progress(
        `warning: cannot save the index of ${label} to ${path} (${
          (error as Error).message
        }); later runs will build it again.`,
      );
      return false;
    }
  }

  #key(kind: string, units: readonly Passage[], settings: unknown): string {
    return createHash("sha256")
      .update(canonicalJson({ v: SAVED_INDEX_VERSION, ragbench: VERSION, kind, settings }))
      .update(this.#fingerprint(units))
      .digest("hex");
  }

  /** The fingerprint of `units` (see {@link fingerprintUnits}), once per array. */
  #fingerprint(units: readonly Passage[]): string {
    let known = this.#fingerprints.get(units);
    if (known === undefined) {
      known = fingerprintUnits(units);
      this.#fingerprints.set(units, known);
    }
    return known;
  }
}

/** Section `name` of a saved file, of type `type`. */
function section<T extends SectionArray>(
  sections: ReadonlyMap<string, SectionArray>,
  name: string,
  type: new (n: number) => T,
): T {
  const array = sections.get(name);
  if (!(array instanceof type)) throw new RangeError(`section ${name} is missing`);
  return array as T;
}

/** The BM25 image held by a saved file (the checks of `Bm25Index` then apply). */
function bm25Image(
  contents: { meta: Record<string, unknown>; sections: ReadonlyMap<string, SectionArray> },
) {
  const s = contents.sections;
  const get = <T extends SectionArray>(name: string, type: new (n: number) => T): T => {
    const array = s.get(name);
    if (!(array instanceof type)) throw new RangeError(`section ${name} is missing`);
    return array as T;
  };
  const count = contents.meta.table_count;
  if (typeof count !== "number") throw new RangeError("the term table's size is missing");
  return {
    dictionary: {
      slots: get("slots", Int32Array) as Int32Array<ArrayBuffer>,
      pool: get("pool", Uint16Array) as Uint16Array<ArrayBuffer>,
      count,
    },
    offsets: get("offsets", Uint32Array),
    postings: get("postings", Uint32Array),
    tfs: get("tfs", Uint8Array),
    bigTfKeys: get("big_tf_keys", Uint32Array),
    bigTfValues: get("big_tf_values", Uint32Array),
    idf: get("idf", Float64Array),
    norm: get("norm", Float64Array),
    peak: get("peak", Float64Array),
  };
}
