import assert from "node:assert/strict";
import { pairOf, runStats, type ScoredLine } from "../../../lib/score/comparison.ts";

function line(system: string, q: string, repeat: number, score: number | null): ScoredLine {
  return { system, question_id: q, repeat, answer_score: score, passed: score === 1 };
}

const LINES: ScoredLine[] = [
  line("A", "q1", 1, 1),
  line("A", "q1", 2, 1),
  line("A", "q2", 1, 1),
  line("A", "q2", 2, 0),
  line("A", "q3", 1, 1),
  line("A", "q3", 2, 1),
  line("A", "q4", 1, 0),
  line("A", "q4", 2, 0),
  line("B", "q1", 1, 0),
  line("B", "q1", 2, 0),
  line("B", "q2", 1, 0),
  line("B", "q2", 2, 0),
  line("B", "q3", 1, 1),
  line("B", "q3", 2, 1),
  line("B", "q4", 1, 0),
  line("B", "q4", 2, 0),
  line("B", "q5", 1, 1),
  line("B", "q5", 2, 1),
  line("B", "q6", 1, null),
];

Deno.test("runStats folds repeats into one value per question before averaging", () => {
  const stats = runStats(["A", "B"], LINES);
  const a = stats.systems[0];
  assert.equal(a.questions, 4);
  // A: q1 1, q2 0.5, q3 1, q4 0 -> 0.625.
  assert.equal(a.score!.mean, 0.625);
  assert.equal(a.accuracy!.mean, 0.625);
  // Only q2 changed verdict (1 change over 1 pair); the mean over 4 questions is 0.25.
  assert.equal(a.flip_rate, 0.25);
  // B has q5 too; q6 has no answer score and is left out.
  assert.equal(stats.systems[1].questions, 5);
  assert.equal(stats.systems[1].flip_rate, 0);
});

Deno.test("runStats compares two systems on the questions both ran", () => {
  const [pair] = runStats(["A", "B"], LINES).pairs;
  assert.equal(pair.a, "A");
  assert.equal(pair.score.n, 4);
  // d = [1, 0.5, 0, 0]: mean 0.375; sign flips of {1, 0.5}: |sum| >= 1.5 in 2 of 4.
  assert.equal(pair.score.diff.mean, 0.375);
  assert.equal(pair.score.p_value, 0.5);
  // Majority verdicts: A correct on q1 and q3 (q2 passed 1 of 2: no majority), B on q3.
  assert.deepEqual(pair.accuracy, { only_a: 1, only_b: 0, p_value: 1 });
});

Deno.test("pairOf turns a comparison round (b - a), interval mirrored", () => {
  const stats = runStats(["A", "B"], LINES);
  const forward = pairOf(stats, "A", "B")!;
  const back = pairOf(stats, "B", "A")!;
  assert.equal(back.score.diff.mean, -forward.score.diff.mean);
  assert.equal(back.score.diff.low, -forward.score.diff.high);
  assert.equal(back.score.diff.high, -forward.score.diff.low);
  assert.deepEqual(back.accuracy, { only_a: 0, only_b: 1, p_value: 1 });
  assert.equal(pairOf(stats, "A", "nobody"), undefined);
});

Deno.test("runStats: a system with no scored line has null intervals and no pairs", () => {
  const stats = runStats(["A", "R"], [...LINES, line("R", "q1", 1, null)]);
  assert.deepEqual(stats.systems[1], {
    system: "R",
    questions: 0,
    score: null,
    accuracy: null,
    flip_rate: null,
  });
  assert.equal(stats.pairs.length, 0);
});
