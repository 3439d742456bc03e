// deno-lint-ignore-file no-console
/**
 * Benchmark of `corpus_grep` against peers measured in the same process, on
 * two corpora of different statistics.
 *
 *   deno run --unstable-raw-imports --allow-read --allow-write --allow-run --allow-sys=loadavg \
 *     --v8-flags=--expose-gc scripts/bench_grep.ts [--documents N] [--runs N] \
 *       [--real cranfield|npl|med] [--datasets DIR]
 *
 * (`--allow-read` is for the raw re2-wasm peer, which loads its wasm from the
 * Deno cache, and the real collection; `--allow-write` and `--allow-run`
 * write the corpus's lines to a temporary file and run ripgrep over it;
 * `corpus_grep` itself needs no permission. `--expose-gc` lets the line
 * store's memory be measured without build garbage.)
 *
 * The corpora: the synthetic one (scripts/synthetic_corpus.ts, default
 * 100,000 documents, ~105 MB: made-up syllable words, short lines, where two
 * letters such as "qu" stand on most lines), and a real collection
 * (scripts/real_corpus.ts, default Cranfield from ../shared/datasets,
 * repeated to the same size: English, one line a document of ~1,000
 * characters, 5 % of them past the 2,000 scanned). A literal's share of lines
 * differs between them (printed), and ripgrep's speed with it: a common
 * literal is its worst case (every candidate is verified), a rare one its
 * best (its SIMD literal search does nearly all the work). A missing real
 * collection is skipped with a message.
 *
 * Targets, per corpus, printed as ratios with PASS/FAIL, the same work on
 * both sides (count the lines matching, case-insensitive, over the same
 * lines; ripgrep `rg -j1 -i -c` over a file holding exactly the lines
 * corpus_grep scans, read from the page cache; without `rg` on PATH those
 * rows read "n/a"):
 * - plain words >= 0.5x ripgrep (`-F`), summed over a few single words;
 * - each regex with a literal >= 1x ripgrep: {@link REGEX_COMMON}, whose
 *   literals are on most lines of the synthetic corpus, and
 *   {@link REGEX_RARE}, whose literals are rare or absent;
 * - a regex with no literal >= 1x V8 `RegExp` (flag i) testing each line;
 *   ours runs the pattern's line DFA (lib/grep/line_dfa.ts) over every byte
 *   and RE2 on the lines it accepts.
 * Then, for the record: word pairs against in-memory `includes` (target
 * >= 800 MB/s), the common-literal regex against V8 and raw re2-wasm (target
 * >= 100 MB/s), an ordered word pair and the no-literal regex against V8.
 * Speeds are MB/s of document text (characters / 1e6 / seconds), medians of
 * `--runs`; each peer's matching-line count is checked against ours. Every
 * query matches fewer than 10,000 lines on both corpora (corpus_grep stops
 * counting there, so a query past it would measure less work on our side).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { corpusGrep } from "../tools/corpus_grep.ts";
import { invokeTool } from "../tools/invoke.ts";
import type { ToolContext, ToolDef } from "../tools/define_tool.ts";
import type { Corpus } from "../lib/types.ts";
import { lineStore } from "../lib/grep/line_store.ts";
import { loadEngine } from "../lib/regex/re2_instance.ts";
import { corpusChars, syntheticCorpus, vocabulary } from "./synthetic_corpus.ts";
import { REAL_COLLECTIONS, type RealCollection, realCorpus } from "./real_corpus.ts";
import {
  alternate,
  type Comparison,
  loadAverage,
  ripgrep,
  type Side,
  timed,
  v8Count,
} from "./grep_peers.ts";

const PLAIN_TARGET = 800;
const REGEX_TARGET = 100;
/** A literal on most lines of the synthetic corpus ("qu"), one on few of Cranfield's ("ka"). */
const REGEX_COMMON = String.raw`\bqu[a-z]*ka\d+\b`;
/** Literals on about 2 % of Cranfield's lines, on none of the synthetic corpus's. */
const REGEX_RARE = String.raw`\b(?:ogive|transpiration)\w*\s+\w+`;
/**
 * A pattern with no literal text to look for first: the engine reads every byte. (16 letters: on
 * 1 % of Cranfield's lines; 12, the pattern before, is on 86 % of them, where the count stops at
 * 10,000 lines and so measures less than the whole text.)
 */
const REGEX_NO_LITERAL = String.raw`\b[a-z]{16}\b`;
/** Literals whose share of lines the header prints. */
const LITERALS = ["qu", "ka", "ogive", "transpiration"];
/** Share of lines the slow raw re2-wasm peer scans. */
const RAW_RE2_SHARE = 0.1;

/** A corpus to measure on, with the words its plain-word rows search. */
interface BenchCorpus {
  name: string;
  corpus: Corpus;
  /** Single words of the plain-word target (a few hundred lines each). */
  singles: string[];
  /** Word pairs of the record rows. */
  pairs: string[][];
}

/** One target row: ours against the peer (measured in alternation), and the bar. */
interface Target {
  corpus: string;
  what: string;
  peer: string;
  /** Undefined when the peer is missing (no `rg`). */
  result: Comparison | undefined;
  target: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      documents: { type: "string" },
      runs: { type: "string" },
      real: { type: "string" },
      datasets: { type: "string" },
    },
  });
  const documents = Number(values.documents ?? 100_000);
  const runs = Number(values.runs ?? 5);
  const corpora: BenchCorpus[] = [];
  const synthetic = syntheticCorpus({ documents });
  const words = vocabulary(200_000);
  corpora.push({
    name: `synthetic (${documents} documents)`,
    corpus: synthetic,
    singles: [2500, 3100, 2200, 4700].map((rank) => words[rank]),
    pairs: [[2500, 4100], [3100, 5200], [2200, 6100], [4700, 3900]].map((p) =>
      p.map((r) => words[r])
    ),
  });
  const name = (values.real ?? "cranfield") as RealCollection;
  if (!REAL_COLLECTIONS.includes(name)) throw new Error(`--real: one of ${REAL_COLLECTIONS}`);
  const real = await realCorpus(name, {
    chars: corpusChars(synthetic),
    ...(values.datasets ? { datasets: values.datasets } : {}),
  });
  if ("missing" in real) {
    say(`skipping the real corpus: ${real.missing}`);
  } else {
    corpora.push({
      name: `${name} x${real.copies} (${real.documents} documents each)`,
      corpus: real.corpus,
      // Each on under 5 % of the lines: every count stays below corpus_grep's 10,000 lines.
      singles: ["ogive", "flutter", "momentum", "transverse"],
      pairs: [["delta", "wing"], ["ogive", "cylinder"], ["cone", "cylinder"], ["jet", "noise"]],
    });
  }
  await loadEngine();
  const targets: Target[] = [];
  for (const bench of corpora) targets.push(...await benchCorpus(bench, runs));
  say("");
  say(`targets on every corpus (load average ${loadAverage()})`);
  say(
    `${"corpus".padEnd(36)} ${"what".padEnd(44)} ${"ours".padStart(6)} ${"peer".padEnd(11)} ` +
      `${"theirs".padStart(6)} ${"ratio".padStart(6)} target`,
  );
  for (const t of targets) {
    const r = t.result;
    const verdict = r === undefined ? "n/a" : r.ratio >= t.target ? "PASS" : "FAIL";
    say(
      `${t.corpus.slice(0, 36).padEnd(36)} ${t.what.slice(0, 44).padEnd(44)} ${
        (r ? r.ours.mbps.toFixed(0) : "n/a").padStart(6)
      } ${t.peer.padEnd(11)} ${(r ? r.theirs.mbps.toFixed(0) : "n/a").padStart(6)} ${
        (r ? r.ratio.toFixed(2) + "x" : "n/a").padStart(6)
      } >= ${t.target}x ${verdict}`,
    );
    if (r && r.theirs.hits !== r.ours.hits) {
      say(`MISMATCH: ${t.peer} found ${r.theirs.hits} lines, corpus_grep ${r.ours.hits}`);
    }
  }
  say(
    "(ours and theirs: MB/s from the median times; ratio: the median over rounds of their time " +
      "over ours, the two run in alternation)",
  );
}

/** Every measurement on one corpus; returns its target rows. */
async function benchCorpus(bench: BenchCorpus, runs: number): Promise<Target[]> {
  const { corpus } = bench;
  const mb = corpusChars(corpus) / 1e6;
  // The lines as corpus_grep scans them: the first 2,000 characters of each (every peer gets these).
  const lines: string[] = [];
  for (const doc of corpus.documents) {
    for (const line of doc.text.split("\n")) lines.push(line.slice(0, 2000));
  }
  const lowerLines = lines.map((line) => line.toLowerCase());
  const share = (literal: string) =>
    (100 * lowerLines.filter((line) => line.includes(literal)).length / lines.length).toFixed(1);
  say("");
  say(
    `== ${bench.name}: ${mb.toFixed(1)} MB, ${lines.length} lines; share of lines holding ` +
      LITERALS.map((l) => `"${l}" ${share(l)} %`).join(", "),
  );
  const memoryBefore = liveMemory();
  const started = performance.now();
  const store = lineStore(corpus);
  const buildMs = Math.round(performance.now() - started);
  const memoryAfter = liveMemory();
  // The UTF-8 form lives in shared WebAssembly memories, which V8 counts in neither heap nor
  // external.
  const wasmBytes = store.forms.utf8.reduce((n, s) => n + s.bytes.buffer.byteLength, 0);
  say(
    `line store: ${store.lineCount} lines, built in ${buildMs} ms (text written as UTF-8 and ` +
      `indexed; not counted below), ${
        ((memoryAfter.bytes - memoryBefore.bytes + wasmBytes) / 1e6).toFixed(0)
      } MB (${memoryAfter.what}; ${(wasmBytes / 1e6).toFixed(0)} MB of it the UTF-8 text)`,
  );
  const ctx = context(corpus);
  const ours = (args: Record<string, unknown>[]): Side =>
    timed(async () => {
      let hits = 0;
      for (const a of args) hits += await grep(ctx, a);
      return hits;
    });
  const v8 = (pattern: string): Side => timed(() => v8Count(lines, pattern));
  const rg = await ripgrep(lines);
  const targets: Target[] = [];
  const target = (what: string, peer: string, result: Comparison | undefined, bar: number) =>
    targets.push({ corpus: bench.name, what, peer, result, target: bar });
  try {
    const words = bench.singles;
    target(
      `plain word (${words.join(", ")})`,
      "ripgrep -j1",
      rg &&
        await alternate(
          runs,
          mb * words.length,
          ours(words.map((pattern) => ({ pattern }))),
          rg.side(words, false),
        ),
      0.5,
    );
    for (const pattern of [REGEX_COMMON, REGEX_RARE]) {
      target(
        `regex /${pattern}/i`,
        "ripgrep -j1",
        rg && await alternate(runs, mb, ours([{ pattern, regex: true }]), rg.side([pattern], true)),
        1,
      );
    }
    const few = Math.min(runs, 3);
    target(
      `regex, no literal /${REGEX_NO_LITERAL}/i`,
      "V8 RegExp",
      await alternate(
        few,
        mb,
        ours([{ pattern: REGEX_NO_LITERAL, regex: true }]),
        v8(REGEX_NO_LITERAL),
      ),
      1,
    );
  } finally {
    await rg?.dispose();
  }

  // For the record: word pairs against `includes` on pre-lower-cased lines; the common-literal
  // regex against V8 and raw re2-wasm; an ordered word pair against V8.
  const pairs = await alternate(
    runs,
    mb * bench.pairs.length,
    ours(bench.pairs.map((pair) => ({ pattern: pair.join(" ") }))),
    timed(() => {
      let hits = 0;
      for (const pair of bench.pairs) {
        for (const line of lowerLines) if (pair.every((w) => line.includes(w))) hits++;
      }
      return hits;
    }),
  );
  say(
    `word pairs (${bench.pairs.map((p) => p.join(" ")).join(", ")}): ours ` +
      `${pairs.ours.mbps.toFixed(0)} MB/s, JS includes ${pairs.theirs.mbps.toFixed(0)} ` +
      `(${pairs.ratio.toFixed(2)}x; ${mismatch(pairs)}); ` +
      `${pairs.ours.mbps >= PLAIN_TARGET ? "PASS" : "FAIL"} >= ${PLAIN_TARGET} MB/s`,
  );
  const regex = await alternate(
    runs,
    mb,
    ours([{ pattern: REGEX_COMMON, regex: true }]),
    v8(REGEX_COMMON),
  );
  const { RE2 } = await import("re2-wasm");
  const raw = new RE2(REGEX_COMMON, "iu");
  const slice = lines.slice(0, Math.ceil(lines.length * RAW_RE2_SHARE));
  const sliceMb = slice.reduce((n, line) => n + line.length, 0) / 1e6;
  const rawRun = await timed(() => slice.filter((line) => raw.test(line)).length)();
  say(
    `regex /${REGEX_COMMON}/i: ours ${regex.ours.mbps.toFixed(0)} MB/s, V8 per line ` +
      `${regex.theirs.mbps.toFixed(0)} (${regex.ratio.toFixed(2)}x; ${mismatch(regex)}), raw ` +
      `re2-wasm per line ${(sliceMb / (rawRun.ms / 1000)).toFixed(0)} (first ${
        RAW_RE2_SHARE * 100
      } % of lines, one run); ${regex.ours.mbps >= REGEX_TARGET ? "PASS" : "FAIL"} >= ` +
      `${REGEX_TARGET} MB/s`,
  );
  const ordered = String.raw`\b${bench.pairs[0][0]}\b.*\b${bench.pairs[0][1]}\b`;
  const pair = await alternate(
    Math.min(runs, 3),
    mb,
    ours([{ pattern: ordered, regex: true }]),
    v8(ordered),
  );
  say(
    `regex /${ordered}/i: ours ${pair.ours.mbps.toFixed(0)} MB/s, V8 per line ` +
      `${pair.theirs.mbps.toFixed(0)} (${pair.ratio.toFixed(2)}x; ${mismatch(pair)})`,
  );
  return targets;
}

function mismatch(c: Comparison): string {
  return c.ours.hits === c.theirs.hits
    ? `${c.ours.hits} lines both`
    : `MISMATCH ${c.ours.hits} vs ${c.theirs.hits}`;
}

/** Runs corpus_grep through the same path a run uses; returns the matching-line count. */
async function grep(ctx: ToolContext, args: Record<string, unknown>): Promise<number> {
  const result = await invokeTool(corpusGrep as unknown as ToolDef, args, ctx);
  if (result.error) throw new Error(`corpus_grep failed: ${result.error.message}`);
  const first = result.output.split("\n", 1)[0];
  const count = /^(\d+) matching line|^Showing \d+ of (?:more than |at least )?(\d+)/.exec(first);
  return count ? Number(count[1] ?? count[2]) : 0;
}

function context(corpus: Corpus): ToolContext {
  return {
    corpus,
    now: Temporal.PlainDate.from("2026-01-01"),
    state: new Map(),
    signal: new AbortController().signal,
    options: { max_results: 50 },
  };
}

/**
 * JS heap + external memory after a full GC when the script runs with
 * `--v8-flags=--expose-gc`; otherwise RSS, which also counts build garbage.
 * WebAssembly memories are in neither figure: the caller adds them.
 */
function liveMemory(): { bytes: number; what: string } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return { bytes: Deno.memoryUsage().rss, what: "RSS growth" };
  gc();
  const usage = Deno.memoryUsage();
  return { bytes: usage.heapUsed + usage.external, what: "live after GC" };
}

function say(line: string): void {
  console.log(line);
}

if (import.meta.main) await main();
