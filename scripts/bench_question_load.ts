/**
 * Benchmark of loading a large question file, against the `yaml` library
 * alone as the peer, in the same process on the same text.
 *
 *   deno run --unstable-raw-imports --allow-env scripts/bench_question_load.ts [--questions N]
 *
 * Generates N questions (default 50,000, about 14 MB of YAML; 180,000 make a
 * 50 MB file), then measures, median of 3 runs:
 * (a) ragbench's `parseQuestions` end to end: YAML value through `js-yaml`,
 *     every question validated (schema, ids, checks);
 * (b) the peer: the same YAML text parsed to a value by `yaml` alone (no
 *     validation), which is how ragbench read question files before.
 * The ratio (a)/(b) shows what the fast path buys; (a) does more work. The
 * file has 100 distinct `iregex` patterns: each distinct pattern costs
 * another 0.1-0.3 ms to compile in RE2 (re2-wasm), which is not measured here.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { parseQuestions } from "../lib/data/questions.ts";
import { parseYamlWithPositions } from "../lib/util/yaml_source.ts";

const { values } = parseArgs({ options: { questions: { type: "string", default: "50000" } } });
const count = Number(values.questions);

function questionFile(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(
      `- id: q${i}\n  question: "What is the height in metres of tower ${i} in the corpus?"\n` +
        `  answers: ["${i}"]\n  kind: single_hop\n  tags: [towers, synthetic]\n  checks:\n` +
        `    - {type: numeric_equals, value: ${i}}\n    - {type: icontains, value: "tower ${i}"}\n` +
        `    - {type: iregex, pattern: "tower\\\\s+${i % 100}\\\\b"}\n`,
    );
  }
  return parts.join("");
}

async function median(run: () => Promise<unknown> | unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[1];
}

const text = questionFile(count);

// deno-lint-ignore no-console
console.log(
  `question load: ${count} questions, ${(text.length / 1e6).toFixed(1)} million characters; ` +
    "ragbench parseQuestions (parse + validate) vs the yaml library's parse alone",
);
const ours = await median(() => parseQuestions(text, "bench.yaml", { toolNames: [] }));
const peer = await median(() => parseYamlWithPositions(text, "bench.yaml"));

// deno-lint-ignore no-console
console.log(`  ragbench parseQuestions  ${(ours / 1000).toFixed(2)} s`);

// deno-lint-ignore no-console
console.log(`  yaml parse alone (peer)  ${(peer / 1000).toFixed(2)} s`);

// deno-lint-ignore no-console
console.log(`  ratio ragbench / peer    ${(ours / peer).toFixed(2)}×`);
