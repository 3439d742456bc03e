/**
 * Exact cosine top-k over packed `Float32Array` vectors, in WebAssembly SIMD.
 *
 * Rows are L2-normalised once when the index is built, and the query at each
 * search, so cosine similarity is a dot product. Two search modes return the
 * same hits (same passages, same scores, same order):
 *
 * - `scan`: the f32 dot product of the query with every row
 *   (kernel/dot_kernel.wat `dot_f32`), then a bounded top-k heap.
 * - `pruned` (default): a pre-filter that reads a quarter of the bytes, then
 *   the same f32 dot products for the rows that can still be in the top k.
 *   Every row also has an int8 copy `x̂ = s·c` (per-row scale `s`, codes
 *   `c` in -127..127), and the query an int16 copy `q̂`. The kernel computes
 *   `q̂·x̂` exactly in integers; by Cauchy–Schwarz the f32 score lies within
 *   `B = ‖q‖·‖x − x̂‖ + ‖q − q̂‖·‖x̂‖ + γ` of it, where `γ = dp·2⁻²²` covers
 *   the rounding of the f32 sum (`dp` = padded dimensions). With `L` the
 *   k-th largest lower bound `q̂·x̂ − B`, a row whose upper bound
 *   `q̂·x̂ + B` is below `L` is beaten by k rows and cannot be a hit; every
 *   other row is scored exactly. Nothing is approximated: the bound is a
 *   proof, not an estimate, so ties and order are those of `scan`. When the
 *   bound keeps more than an eighth of the rows (vectors all alike, or a zero
 *   query), the search falls back to `scan`.
 *
 * Ties are broken by row number (passage order). A zero row (an empty
 * passage) scores 0 against every query.
 *
 * Memory: one WebAssembly memory per index holding the f32 rows, the int8
 * rows and scratch space: about `n·dp·5 + n·8` bytes (100,000 × 384: 196 MB).
 * A wasm32 memory stops at 4 GiB, about 2 million 384-dimension vectors.
 *
 * @module
 */

import { DOT_KERNEL_BASE64 } from "./kernel/dot_kernel_bytes.ts";
import { lazyKernelModule, MAX_PAGES, PAGE } from "../util/load_kernel.ts";
import { type ScoredItem, TopK } from "./top_k.ts";

/** How {@link VectorIndex.search} scores rows (both are exact; see the module docs). */
export type VectorSearchMode = "pruned" | "scan";

interface Kernel {
  memory: WebAssembly.Memory;
  dot_f32(rows: number, n: number, d4: number, query: number, out: number): void;
  dot_f32_at(
    rows: number,
    d4: number,
    query: number,
    idx: number,
    count: number,
    out: number,
  ): void;
  dot_i8(rows: number, n: number, d16: number, query: number, out: number): void;
}

/** Rounding allowance per padded dimension for the f32 sum (see the module docs). */
const ROUNDING_PER_DIM = 2 ** -22;
/** Above this share of rows kept by the pre-filter, a full scan is cheaper. */
const FALLBACK_SHARE = 1 / 8;

const kernelModule = lazyKernelModule(DOT_KERNEL_BASE64);

function align16(bytes: number): number {
  return Math.ceil(bytes / 16) * 16;
}

/** Counters of the last search, for benchmarks and tests. */
export interface VectorSearchStats {
  mode: VectorSearchMode;
  /** Rows scored in f32 (all rows for `scan`). */
  scored: number;
}

/**
 * A built index's arrays ({@link VectorIndex.image}): normalised f32 rows and
 * their int8 copies, each padded to a multiple of 16 dimensions, and per row
 * the int8 scale, ‖x − x̂‖ and ‖x̂‖.
 */
export interface VectorImage {
  rowsF: Float32Array;
  rowsI: Int8Array;
  scale: Float64Array;
  residual: Float64Array;
  quantNorm: Float64Array;
}

/** An immutable index over `size` vectors of `dimensions` floats. */
export class VectorIndex {
  readonly size: number;
  readonly dimensions: number;
  /** Counters of the last {@link search}. */
  lastSearch: VectorSearchStats = { mode: "scan", scored: 0 };
  #kernel: Kernel;
  #dp: number;
  #queryF: number;
  #queryI: number;
  #out: number;
  #idx: number;
  #rowsF: number;
  #rowsI: number;
  #scale: Float64Array;
  /** ‖x − x̂‖ per row. */
  #residual: Float64Array;
  /** ‖x̂‖ per row. */
  #quantNorm: Float64Array;
  #maxQueryCode: number;

  /**
   * Builds an index from `vectors` (`size × dimensions` floats, row-major;
   * the array is read, not kept). Rows are normalised to length 1 (a zero
   * row stays zero). With `saved` (an {@link image} of an index of these
   * dimensions) the index copies those arrays and `vectors` is not read.
   *
   * @throws {RangeError} when the length is not a multiple of `dimensions`,
   *   a value is not finite, or the index would not fit in 4 GiB.
   */
  constructor(vectors: Float32Array, dimensions: number, saved?: VectorImage) {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new RangeError(`dimensions must be a whole number >= 1, got ${dimensions}`);
    }
    if (saved === undefined && vectors.length % dimensions !== 0) {
      throw new RangeError(
        `${vectors.length} floats is not a whole number of ${dimensions}-dimension vectors`,
      );
    }
    const n = saved ? saved.scale.length : vectors.length / dimensions;
    const dp = Math.ceil(dimensions / 16) * 16;
    if (
      saved && (saved.rowsF.length !== n * dp || saved.rowsI.length !== n * dp ||
        saved.residual.length !== n || saved.quantNorm.length !== n)
    ) throw new RangeError(`a saved vector index's arrays do not fit ${n} × ${dimensions}`);
    this.size = n;
    this.dimensions = dimensions;
    this.#dp = dp;
    this.#queryF = 0;
    this.#queryI = align16(dp * 4);
    this.#out = this.#queryI + align16(dp * 2);
    this.#idx = this.#out + align16(n * 4);
    this.#rowsF = this.#idx + align16(n * 4);
    this.#rowsI = this.#rowsF + n * dp * 4;
    const total = this.#rowsI + n * dp;
    const pages = Math.ceil(total / PAGE);
    if (pages > MAX_PAGES - 1) {
      throw new RangeError(
        `A vector index of ${n} × ${dimensions} needs ${(total / 2 ** 30).toFixed(1)} GiB, ` +
          "more than the 4 GiB a WebAssembly memory can hold; use fewer passages or dimensions.",
      );
    }
    const instance = new WebAssembly.Instance(kernelModule(), {});
    this.#kernel = instance.exports as unknown as Kernel;
    const memory = this.#kernel.memory;
    if (pages > 1) memory.grow(pages - 1);
    // Query codes as large as the i32 sums allow: a row's dot product adds dp products.
    this.#maxQueryCode = Math.min(32_767, Math.floor((2 ** 31 - 1) / (127 * dp)));
    this.#scale = new Float64Array(n);
    this.#residual = new Float64Array(n);
    this.#quantNorm = new Float64Array(n);
    const rowsF = new Float32Array(memory.buffer, this.#rowsF, n * dp);
    const rowsI = new Int8Array(memory.buffer, this.#rowsI, n * dp);
    if (saved) {
      rowsF.set(saved.rowsF);
      rowsI.set(saved.rowsI);
      this.#scale.set(saved.scale);
      this.#residual.set(saved.residual);
      this.#quantNorm.set(saved.quantNorm);
      return;
    }
    for (let r = 0; r < n; r++) {
      const src = r * dimensions;
      let sum = 0;
      for (let j = 0; j < dimensions; j++) {
        const v = vectors[src + j];
        if (!Number.isFinite(v)) {
          throw new RangeError(`vector ${r} has a non-finite value at position ${j}`);
        }
        sum += v * v;
      }
      const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
      const dst = r * dp;
      let max = 0;
      for (let j = 0; j < dimensions; j++) {
        const v = Math.fround(vectors[src + j] * inv);
        rowsF[dst + j] = v;
        if (Math.abs(v) > max) max = Math.abs(v);
      }
      const scale = max / 127;
      let residual = 0;
      let quantNorm = 0;
      if (scale > 0) {
        for (let j = 0; j < dimensions; j++) {
          const v = rowsF[dst + j];
          const code = Math.round(v / scale);
          rowsI[dst + j] = code;
          const approx = code * scale;
          residual += (v - approx) * (v - approx);
          quantNorm += approx * approx;
        }
      }
      this.#scale[r] = scale;
      this.#residual[r] = Math.sqrt(residual);
      this.#quantNorm[r] = Math.sqrt(quantNorm);
    }
  }

  /**
   * The index's rows and per-row figures (views of its memory, valid until
   * the index is dropped), for saving it: passing them back to the
   * constructor (with no vectors and the same dimensions) gives an index
   * that returns the same hits with the same scores, without normalising or
   * quantising anything.
   */
  image(): VectorImage {
    const memory = this.#kernel.memory;
    const cells = this.size * this.#dp;
    return {
      rowsF: new Float32Array(memory.buffer, this.#rowsF, cells),
      rowsI: new Int8Array(memory.buffer, this.#rowsI, cells),
      scale: this.#scale,
      residual: this.#residual,
      quantNorm: this.#quantNorm,
    };
  }

  /**
   * The `k` rows most similar to `query` (cosine), best first, ties by row
   * number. `query` has `dimensions` floats; it is normalised here.
   *
   * @throws {RangeError} when the query has the wrong length or a non-finite value.
   */
  search(query: Float32Array, k: number, options: { mode?: VectorSearchMode } = {}): ScoredItem[] {
    if (query.length !== this.dimensions) {
      throw new RangeError(
        `query has ${query.length} dimensions, the index ${this.dimensions}`,
      );
    }
    const n = this.size;
    const want = Math.min(Math.max(0, Math.floor(k)), n);
    if (want === 0) return [];
    const memory = this.#kernel.memory;
    const dp = this.#dp;
    const qf = new Float32Array(memory.buffer, this.#queryF, dp);
    let sum = 0;
    for (let j = 0; j < this.dimensions; j++) {
      const v = query[j];
      if (!Number.isFinite(v)) throw new RangeError(`query has a non-finite value at ${j}`);
      sum += v * v;
    }
    const inv = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    let max = 0;
    for (let j = 0; j < this.dimensions; j++) {
      qf[j] = query[j] * inv;
      if (Math.abs(qf[j]) > max) max = Math.abs(qf[j]);
    }
    qf.fill(0, this.dimensions);
    if ((options.mode ?? "pruned") === "pruned" && max > 0) {
      const hits = this.#pruned(qf, max, want);
      if (hits !== null) return hits;
    }
    return this.#scan(want);
  }

  #scan(k: number): ScoredItem[] {
    const n = this.size;
    this.#kernel.dot_f32(this.#rowsF, n, this.#dp / 4, this.#queryF, this.#out);
    const scores = new Float32Array(this.#kernel.memory.buffer, this.#out, n);
    const top = new TopK(k);
    for (let i = 0; i < n; i++) {
      const s = scores[i];
      if (s >= top.threshold) top.push(s, i);
    }
    this.lastSearch = { mode: "scan", scored: n };
    return top.sorted();
  }

  /** The pre-filtered search; null when the bound keeps too many rows to be worth it. */
  #pruned(qf: Float32Array, max: number, k: number): ScoredItem[] | null {
    const n = this.size;
    const dp = this.#dp;
    const memory = this.#kernel.memory;
    const qi = new Int16Array(memory.buffer, this.#queryI, dp);
    const qScale = max / this.#maxQueryCode;
    let qNorm = 0;
    let qError = 0;
    for (let j = 0; j < dp; j++) {
      const v = qf[j];
      const code = Math.round(v / qScale);
      qi[j] = code;
      const diff = v - code * qScale;
      qNorm += v * v;
      qError += diff * diff;
    }
    qNorm = Math.sqrt(qNorm);
    qError = Math.sqrt(qError);
    this.#kernel.dot_i8(this.#rowsI, n, dp / 16, this.#queryI, this.#out);
    const dots = new Int32Array(memory.buffer, this.#out, n);
    const scale = this.#scale;
    const residual = this.#residual;
    const quantNorm = this.#quantNorm;
    const rounding = dp * ROUNDING_PER_DIM;
    // Pass 1: the k-th largest lower bound.
    const lower = new TopK(k);
    for (let i = 0; i < n; i++) {
      const approx = qScale * scale[i] * dots[i];
      const bound = qNorm * residual[i] + qError * quantNorm[i] + rounding;
      const low = approx - bound;
      if (low > lower.threshold) lower.push(low, i);
    }
    const floor = lower.threshold;
    // Pass 2: rows whose upper bound reaches it.
    const idx = new Int32Array(memory.buffer, this.#idx, n);
    const limit = Math.max(k, Math.floor(n * FALLBACK_SHARE));
    let count = 0;
    for (let i = 0; i < n; i++) {
      const approx = qScale * scale[i] * dots[i];
      const bound = qNorm * residual[i] + qError * quantNorm[i] + rounding;
      if (approx + bound >= floor) {
        if (count === limit) return null;
        idx[count++] = i;
      }
    }
    this.#kernel.dot_f32_at(this.#rowsF, dp / 4, this.#queryF, this.#idx, count, this.#out);
    const scores = new Float32Array(memory.buffer, this.#out, count);
    const top = new TopK(k);
    for (let c = 0; c < count; c++) top.push(scores[c], idx[c]);
    this.lastSearch = { mode: "pruned", scored: count };
    return top.sorted();
  }
}
