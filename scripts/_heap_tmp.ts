import { readResultLines } from "../lib/report/read_run.ts";
import { LineEmbedder } from "../lib/report/html/question_data.ts";
const g = (globalThis as any).gc;
g();
const before = Deno.memoryUsage().heapUsed;
const emb = new LineEmbedder([]);
let t = performance.now();
const { lines } = readResultLines(Deno.args[0], {
  ranking: Deno.args[1] === "r",
  embedded: Deno.args[2] === "e" ? emb : undefined,
});
console.log("read ms", (performance.now() - t).toFixed(0));
g();
const after = Deno.memoryUsage().heapUsed;
console.log(
  lines.length,
  "lines",
  ((after - before) / lines.length).toFixed(0),
  "B/line",
  emb.size,
);
