import assert from "node:assert/strict";
import {
  assignShards,
  jobWeight,
  MAX_SHARDS,
  parseShard,
  shardBlock,
  shardFilter,
  type ShardLayout,
} from "../../../lib/run/shard.ts";
import { UsageError } from "../../../lib/errors.ts";

function layout(weights: number[], questions: number, repeats: number): ShardLayout {
  return {
    systems: weights.map((weight, i) => ({ name: `s${i}`, weight })),
    questions: Array.from({ length: questions }, (_, i) => `q${i}`),
    repeats,
  };
}

Deno.test("every job, repeats included, is in exactly one shard, for every count", () => {
  const l = layout([1, 4.5, 0.25, 10], 23, 3);
  for (const count of [1, 2, 3, 7, 50, 400]) {
    const filters = Array.from(
      { length: count },
      (_, i) => shardFilter({ index: i + 1, count }, l),
    );
    let jobs = 0;
    for (const s of l.systems) {
      for (const q of l.questions) {
        for (let r = 1; r <= l.repeats; r++) {
          const owners = filters.filter((accepts) => accepts(s.name, q, r)).length;
          assert.equal(owners, 1, `${s.name}/${q}/${r} with ${count} shards`);
          jobs++;
        }
      }
    }
    const blocks = filters.map((_, i) => shardBlock({ index: i + 1, count }, l));
    assert.equal(blocks.reduce((n, b) => n + b.jobs, 0), jobs);
    assert.ok(blocks.every((b) => b.run_jobs === jobs));
  }
});

Deno.test("a job outside the layout belongs to no shard", () => {
  const accepts = shardFilter({ index: 1, count: 1 }, layout([1], 2, 1));
  assert.equal(accepts("s0", "q0", 1), true);
  assert.equal(accepts("s0", "q9", 1), false);
  assert.equal(accepts("other", "q0", 1), false);
  assert.equal(accepts("s0", "q0", 2), false);
  assert.equal(accepts("__proto__", "constructor", 1), false);
});

Deno.test("the split is balanced by expected model calls: shards differ by at most one job's weight", () => {
  const weights = [1, 4.5, 0.25, 10, 2];
  const l = layout(weights, 31, 2);
  for (const count of [2, 3, 7, 13]) {
    const shardOf = assignShards(l, count);
    const load = new Array(count).fill(0);
    let job = 0;
    for (const w of weights) {
      for (let k = 0; k < 31 * 2; k++) load[shardOf[job++]] += w;
    }
    const spread = Math.max(...load) - Math.min(...load);
    assert.ok(spread <= Math.max(...weights), `count ${count}: loads ${load}`);
  }
});

Deno.test("consecutive questions of a system go to different shards", () => {
  const shardOf = assignShards(layout([1], 6, 1), 3);
  assert.deepEqual([...shardOf], [0, 1, 2, 0, 1, 2]);
});

Deno.test("the split is a fixed function of the layout (the same on every machine)", () => {
  // Pinned: a change to the split makes shards of one run disagree across ragbench versions.
  const shardOf = assignShards(layout([1, 4.5, 0.25], 4, 2), 3);
  assert.deepEqual([...shardOf], [
    0,
    1,
    2,
    0,
    1,
    2,
    0,
    1, // s0 (weight 1): round robin; loads 3, 3, 2
    2,
    0,
    1,
    2,
    0,
    1,
    2,
    0, // s1 (4.5): the lightest first; loads 16.5, 12, 15.5
    1,
    1,
    1,
    1,
    1,
    1,
    1,
    1, // s2 (0.25): all to the lightest; loads 16.5, 14, 15.5
  ]);
  assert.deepEqual(assignShards(layout([1, 4.5, 0.25], 4, 2), 3), shardOf);
});

Deno.test("a system that calls no model still weighs something, so its jobs spread too", () => {
  assert.equal(jobWeight({ min: 0, max: 0 }), 0.25);
  assert.equal(jobWeight({ min: 1, max: 8 }), 4.5);
});

Deno.test("--shard takes I/N from 1/1 to N/N and names the form otherwise", () => {
  assert.deepEqual(parseShard("2/3"), { index: 2, count: 3 });
  assert.deepEqual(parseShard(" 1 / 1 "), { index: 1, count: 1 });
  assert.deepEqual(parseShard(`${MAX_SHARDS}/${MAX_SHARDS}`), {
    index: MAX_SHARDS,
    count: MAX_SHARDS,
  });
  for (const bad of ["0/3", "4/3", "1/0", "a/b", "2", "-1/3", "1/3/4", `1/${MAX_SHARDS + 1}`, ""]) {
    assert.throws(() => parseShard(bad), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      assert.match(e.message, /--shard takes INDEX\/COUNT with 1 ≤ INDEX ≤ COUNT/);
      assert.match(e.message, /JOB_COMPLETION_INDEX needs \+ 1/);
      return true;
    }, bad);
  }
});
