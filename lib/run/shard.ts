/**
 * Shards: a run's jobs (system × question × repeat) split into `count`
 * parts so that separate processes or machines (a CI matrix, a Kubernetes
 * Indexed Job, GNU parallel) each run one, and `ragbench merge` joins them.
 *
 * The partition is a pure function of what the run's manifest records: the
 * systems in config order with their weights, the question ids in file
 * order, the repeats and the shard count. It never depends on the machine,
 * the time or chance, so every machine computes the same one, and merge
 * computes it again to check that each shard holds exactly its jobs.
 *
 * Balance: a job weighs the model calls its system is expected to make
 * (the midpoint of `modelCallsOf`'s range, at least {@link MIN_WEIGHT} so a
 * system that calls no model still spreads). Jobs are taken in the order
 * the results file is sorted in (system, question, repeat) and each goes to
 * the shard with the least weight so far (ties: fewer jobs, then the lower
 * index) — greedy list scheduling, so shards differ by at most one job's
 * weight, and consecutive questions of a system land in different shards.
 *
 * @module
 */

import { z } from "zod";
import { UsageError } from "../errors.ts";

/** Largest shard count (the partition's cost grows with log(count) a job). */
export const MAX_SHARDS = 10_000;

/** Weight of a job whose system makes no model call. */
export const MIN_WEIGHT = 0.25;

/** Which shard this process runs: `index` from 1 to `count`. */
export interface ShardSpec {
  index: number;
  count: number;
}

/**
 * Parses `--shard i/n` (i from 1 to n).
 *
 * @throws {UsageError} naming the accepted form.
 */
export function parseShard(text: string): ShardSpec {
  const match = /^\s*(\d{1,6})\s*\/\s*(\d{1,6})\s*$/.exec(text);
  const form = `--shard takes INDEX/COUNT with 1 ≤ INDEX ≤ COUNT ≤ ${MAX_SHARDS}, ` +
    `e.g. --shard 2/4 (the second of four; a zero-based index such as ` +
    `JOB_COMPLETION_INDEX needs + 1)`;
  if (match === null) throw new UsageError(`${form}; got "${text}".`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || count > MAX_SHARDS || index < 1 || index > count) {
    throw new UsageError(`${form}; got "${text}".`);
  }
  return { index, count };
}

/** `i/n`. */
export function shardName(spec: ShardSpec): string {
  return `${spec.index}/${spec.count}`;
}

/** The jobs of a whole run, as the partition sees them. */
export interface ShardLayout {
  /** System names in config order, each with its job weight. */
  systems: ReadonlyArray<{ name: string; weight: number }>;
  /** Question ids in the question set's order (after `--limit`). */
  questions: readonly string[];
  repeats: number;
}

/** `run.json`'s `shard` block: this shard and the layout of the whole run it is part of. */
export const shardBlockSchema = z.looseObject({
  index: z.int().min(1),
  count: z.int().min(1).max(MAX_SHARDS),
  /** Jobs of this shard. */
  jobs: z.int().min(0),
  /** Jobs of the whole run. */
  run_jobs: z.int().min(0),
  layout: z.object({
    systems: z.array(z.object({ name: z.string(), weight: z.number().positive() })),
    questions: z.array(z.string()),
    repeats: z.int().min(1),
  }),
}).refine((b) => b.index <= b.count, "index is over count");

/** A parsed `shard` block. */
export type ShardBlock = z.infer<typeof shardBlockSchema>;

/** The weight of a job of a system making `calls.min` to `calls.max` model calls. */
export function jobWeight(calls: { min: number; max: number }): number {
  return Math.max(MIN_WEIGHT, (calls.min + calls.max) / 2);
}

/** The position of a job in a layout's canonical order (system, question, repeat). */
export function jobIndex(
  layout: ShardLayout,
  at: { system: number; question: number; repeat: number },
): number {
  return (at.system * layout.questions.length + at.question) * layout.repeats + at.repeat - 1;
}

/**
 * The shard (0-based) of every job of `layout`, indexed by {@link jobIndex}.
 *
 * @throws {RangeError} for a count or layout out of range (a programmer error).
 */
export function assignShards(layout: ShardLayout, count: number): Uint16Array {
  if (!Number.isInteger(count) || count < 1 || count > MAX_SHARDS) {
    throw new RangeError(`shard count must be 1..${MAX_SHARDS}, got ${count}`);
  }
  const total = layout.systems.length * layout.questions.length * layout.repeats;
  const shardOf = new Uint16Array(total);
  const heap = new ShardHeap(count);
  let job = 0;
  for (const system of layout.systems) {
    if (!(system.weight > 0) || !Number.isFinite(system.weight)) {
      throw new RangeError(`weight of ${system.name} must be a positive number`);
    }
    const jobs = layout.questions.length * layout.repeats;
    for (let k = 0; k < jobs; k++) shardOf[job++] = heap.take(system.weight);
  }
  return shardOf;
}

/** The shard block a shard's `run.json` records. */
export function shardBlock(spec: ShardSpec, layout: ShardLayout): ShardBlock {
  const shardOf = assignShards(layout, spec.count);
  let jobs = 0;
  for (const s of shardOf) if (s === spec.index - 1) jobs++;
  return {
    index: spec.index,
    count: spec.count,
    jobs,
    run_jobs: shardOf.length,
    layout: {
      systems: layout.systems.map((s) => ({ name: s.name, weight: s.weight })),
      questions: [...layout.questions],
      repeats: layout.repeats,
    },
  };
}

/**
 * Whether a job belongs to shard `spec` of `layout`: the runner's filter.
 * A job of a system or question outside the layout belongs to none.
 */
export function shardFilter(
  spec: ShardSpec,
  layout: ShardLayout,
): (system: string, questionId: string, repeat: number) => boolean {
  const shardOf = assignShards(layout, spec.count);
  const systems = new Map(layout.systems.map((s, i) => [s.name, i]));
  const questions = new Map(layout.questions.map((id, i) => [id, i]));
  return (system, questionId, repeat) => {
    const s = systems.get(system);
    const q = questions.get(questionId);
    if (s === undefined || q === undefined || repeat < 1 || repeat > layout.repeats) return false;
    return shardOf[jobIndex(layout, { system: s, question: q, repeat })] === spec.index - 1;
  };
}

/**
 * A min-heap of shards by (weight so far, jobs so far, index): `take`
 * gives the lightest shard a job and returns its index. Weights are sums of
 * halves and quarters of whole numbers, exact in binary, so every machine
 * breaks the same ties.
 */
class ShardHeap {
  readonly #load: Float64Array;
  readonly #jobs: Float64Array;
  readonly #heap: Uint16Array;

  constructor(count: number) {
    this.#load = new Float64Array(count);
    this.#jobs = new Float64Array(count);
    this.#heap = new Uint16Array(count);
    for (let i = 0; i < count; i++) this.#heap[i] = i;
  }

  take(weight: number): number {
    const shard = this.#heap[0];
    this.#load[shard] += weight;
    this.#jobs[shard]++;
    this.#siftDown(0);
    return shard;
  }

  #less(a: number, b: number): boolean {
    const load = this.#load[a] - this.#load[b];
    if (load !== 0) return load < 0;
    const jobs = this.#jobs[a] - this.#jobs[b];
    return jobs !== 0 ? jobs < 0 : a < b;
  }

  #siftDown(at: number): void {
    const heap = this.#heap;
    const n = heap.length;
    while (true) {
      const left = 2 * at + 1;
      if (left >= n) return;
      const right = left + 1;
      const child = right < n && this.#less(heap[right], heap[left]) ? right : left;
      if (!this.#less(heap[child], heap[at])) return;
      [heap[child], heap[at]] = [heap[at], heap[child]];
      at = child;
    }
  }
}
