import { corpusGrep as NEW } from "./tools/corpus_grep.ts";
import { corpusGrep as OLD } from "/tmp/c6/base/tools/corpus_grep.ts";
import { invokeTool } from "./tools/invoke.ts";
import { syntheticCorpus, vocabulary } from "./scripts/synthetic_corpus.ts";
import { realCorpus } from "./scripts/real_corpus.ts";
const which = Deno.args[0] ?? "synthetic";
const corpus = which === "synthetic" ? syntheticCorpus({ documents: 100000 }) : (await realCorpus("cranfield", { chars: 105e6 }) as any).corpus;
const words = which === "synthetic" ? [2500, 3100, 2200, 4700].map((r) => vocabulary(200000)[r]) : ["ogive", "transpiration"];
const patterns = (Deno.args[1] ? [Deno.args[1]] : words);
const regex = Deno.args[1] !== undefined;
const ctx = (c: any) => ({ corpus: c, now: Temporal.PlainDate.from("2026-01-01"), state: new Map(), signal: new AbortController().signal, options: { max_results: 50 } });
const cOld = { documents: corpus.documents, tables: [] }, cNew = { documents: corpus.documents, tables: [] };
const run = async (def: any, c: any) => { let out = ""; for (const p of patterns) out += (await invokeTool(def, { pattern: p, regex }, ctx(c) as any)).output.split("\n")[0] + " | "; return out; };
console.log("old", (await run(OLD, cOld)).slice(0, 200));
console.log("new", (await run(NEW, cNew)).slice(0, 200));
const mb = corpus.documents.reduce((n: number, d: any) => n + d.text.length, 0) / 1e6 * patterns.length;
for (let r = 0; r < 4; r++) for (const [name, def, c] of [["old", OLD, cOld], ["new", NEW, cNew]] as const) {
  const s = performance.now(); await run(def, c); const ms = performance.now() - s;
  console.log(name, (mb / (ms / 1000)).toFixed(0), "MB/s");
}
