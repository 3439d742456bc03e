import assert from "node:assert/strict";
import { renderReport } from "../../../../lib/report/html/report.ts";
import { comparisonSection } from "../../../../lib/report/html/sections.ts";
import { paretoFront } from "../../../../lib/report/html/svg_plot.ts";
import { runStats, type ScoredLine } from "../../../../lib/score/comparison.ts";
import { syntheticReport } from "../../../support/report_input.ts";

Deno.test("paretoFront keeps the points nothing beats on both cost and score", () => {
  const front = paretoFront([
    { label: "cheap", x: 1, y: 0.5 },
    { label: "dear", x: 10, y: 0.9 },
    { label: "dominated", x: 5, y: 0.4 },
    { label: "middle", x: 4, y: 0.8 },
    { label: "twin", x: 4, y: 0.8 },
  ]);
  assert.deepEqual(
    front,
    ["middle", "twin", "cheap", "dear"].sort((a, b) =>
      ["cheap", "middle", "twin", "dear"].indexOf(a) -
      ["cheap", "middle", "twin", "dear"].indexOf(b)
    ),
  );
});

Deno.test("renderReport is self-contained: no external script, style, font or image", () => {
  const html = renderReport(syntheticReport(["a", "b"], 12));
  assert.doesNotMatch(html, /<script[^>]+src=/i);
  assert.doesNotMatch(html, /<link[^>]+href=/i);
  assert.doesNotMatch(html, /@import|url\(\s*["']?https?:/i);
  assert.doesNotMatch(html, /https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  for (
    const id of ["summary-table", "questions-table", "comparisons", "plots", "tools", "failures"]
  ) {
    assert.match(html, new RegExp(`id="${id}"`), id);
  }
  // Two scatter plots.
  assert.equal(html.match(/<svg /g)?.length, 2);
});

Deno.test("renderReport keeps a model's markup inert in tables and embedded data", () => {
  const html = renderReport(syntheticReport(["a"], 2, "</script><img src=x onerror=alert(1)><!--"));
  assert.doesNotMatch(html, /<img src=x/);
  assert.doesNotMatch(html, /<\/script><img/);
  const data =
    html.match(/<script type="application\/json" id="report-data">([^]*?)<\/script>/)![1];
  const parsed = JSON.parse(data);
  assert.equal(parsed.lines[0].answer, "</script><img src=x onerror=alert(1)><!-- (0)");
});

Deno.test("renderReport shows what building the indexes cost, only when something was embedded", () => {
  const input = syntheticReport(["a"], 2);
  assert.doesNotMatch(renderReport(input), /id="indexing"/);
  const html = renderReport({
    ...input,
    indexing: [
      {
        retriever: "<b>dense</b>",
        passages: 12,
        embedder: "openai:m",
        tokens: 900,
        cost_usd: 0.0018,
        cached: 3,
      },
    ],
  });
  const found = html.match(/<section id="indexing">([^]*?)<\/section>/);
  assert.ok(found, "an indexing section");
  assert.match(found[1], /<h2>Building the indexes<\/h2>/);
  assert.match(found[1], /cost \$0\.00180 in all; this is not in \$\/question/);
  assert.match(
    found[1],
    /<td>&lt;b&gt;dense&lt;\/b&gt;<\/td><td>openai:m<\/td><td class="num">12<\/td>/,
  );
});

Deno.test("renderReport on a 10,000-line run stays under 20 MB", () => {
  const html = renderReport(syntheticReport(["a", "b", "c", "d"], 2500, "x".repeat(3000)));
  const bytes = new TextEncoder().encode(html).length;
  assert.ok(bytes < 20 * 1024 * 1024, `${(bytes / 1e6).toFixed(1)} MB`);
  // Long answers are cut, with the cut said; every line keeps its trace.
  assert.match(html, /x… \[cut; the full text is in the JSONL\]/);
  assert.doesNotMatch(html, /"rowOnly":true/);
});

Deno.test("renderReport: past the detail budget, lines are embedded as rows only", () => {
  const html = renderReport(
    syntheticReport(["a", "b", "c", "d", "e", "f"], 6000, "y".repeat(2000)),
  );
  const data = JSON.parse(
    html.match(/<script type="application\/json" id="report-data">([^]*?)<\/script>/)![1],
  );
  assert.equal(data.lines.length, 36_000);
  const rowOnly = data.lines.filter((l: { rowOnly?: boolean }) => l.rowOnly);
  assert.ok(rowOnly.length > 0 && rowOnly.length < 36_000, String(rowOnly.length));
  assert.deepEqual(rowOnly[0].steps, []);
  assert.equal(rowOnly[0].more, 3);
  assert.ok(data.lines[0].steps.length === 3);
  assert.ok(html.length < 30_000_000, `${html.length}`);
});

Deno.test("renderReport lists questions whose verdict changed between repeats", () => {
  const input = syntheticReport(["a"], 3);
  const again = input.lines.map((l, i) => ({
    ...l,
    repeat: 2,
    passed: i === 0 ? !l.passed : l.passed,
  }));
  const html = renderReport({ ...input, lines: [...input.lines, ...again] });
  assert.match(html, /Questions whose verdict changed between repeats/);
  assert.match(
    html,
    /<tr><td>a<\/td><td>q0<\/td><td class="num">2<\/td><td class="num">1<\/td><td class="num">1<\/td><\/tr>/,
  );
  assert.doesNotMatch(renderReport(input), /id="stability"/);
});

Deno.test("comparison matrix: a cell is coloured by the verdict of the one test, and says so in words", () => {
  const stats = runStats(["top", "near", "low"], [
    ...lines("top", [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
    ...lines("near", [1, 1, 1, 1, 1, 1, 1, 1, 0, 0]),
    ...lines("low", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  ]);
  const html = String(comparisonSection(["top", "near", "low"], stats));
  // top vs low: ten questions one way, p = 2/1024: green, its interval wholly above 0.
  assert.match(
    html,
    /<td class="better" title="top beats low by 1\.000 \[\+1\.000, \+1\.000\], p = 0\.002 \(n = 10\)">\+1\.000<br><small>\[\+1\.000, \+1\.000\] p = 0\.002<\/small><\/td>/,
  );
  // top vs near: two questions differ, too few for any test: level, and the cell says why.
  assert.match(
    html,
    /<td class="level" title="top and near cannot be separated: only 2 of 10 questions differ, and no test at 5 % can decide with fewer than 6 differing; [^"]*">\+0\.200<br><small>\[0\.000, \+0\.[0-9]{3}\] only 2 differ<\/small><\/td>/,
  );
  assert.doesNotMatch(html, /p = &lt;|p = </);
  assert.match(html, /1 pair differs on fewer than 6 questions: no test at 5 % can decide it\./);
});

function lines(system: string, values: number[]): ScoredLine[] {
  return values.map((v, i) => ({
    system,
    question_id: `q${i}`,
    repeat: 1,
    answer_score: v,
    passed: v === 1,
  }));
}

Deno.test("renderReport: latency on a log axis captioned 'faster', cost captioned 'cheaper'", () => {
  const html = renderReport(syntheticReport(["a", "b", "c"], 6));
  const [cost, latency] = html.match(/<figure class="plot">[^]*?<\/figure>/g)!;
  assert.match(cost, />US dollars per question</);
  assert.match(cost, /both better and cheaper/);
  assert.match(cost, /class="direction">← cheaper</);
  assert.match(latency, />p50 latency, ms \(log scale\)</);
  assert.match(latency, /both better and faster/);
  assert.match(latency, /class="direction">← faster</);
});

Deno.test("renderReport: every table sits in a box that scrolls sideways", () => {
  const html = renderReport(syntheticReport(["a", "b"], 6));
  const tables = html.match(/<table[ >]/g)!.length;
  assert.equal(html.match(/<div class="table-wrap[^"]*"><table[ >]/g)?.length, tables);
  assert.match(html, /\.table-wrap tr > :first-child \{ position: sticky; left: 0;/);
});

Deno.test("renderReport embeds each line's nDCG at the headline cut-off, and names it", () => {
  const input = syntheticReport(["bm25"], 4, "", {
    retrievalOnly: true,
    ndcg: (_, i) => i / 4,
  });
  const html = renderReport({ ...input, retrievalK: [5, 20] });
  // Cut-offs 5 and 20: the headline is nDCG@5, which these lines do not have.
  assert.doesNotMatch(html, /<th>score<\/th><th>nDCG@/);
  const ten = renderReport(input);
  assert.match(ten, /<th>score<\/th><th>nDCG@10<\/th><th>ms<\/th>/);
  const data = JSON.parse(
    ten.match(/<script type="application\/json" id="report-data">([^]*?)<\/script>/)![1],
  );
  assert.deepEqual(data.lines.map((l: { nd: number }) => l.nd), [0, 0.25, 0.5, 0.75]);
  const settings = JSON.parse(
    ten.match(/<script type="application\/json" id="report-settings">([^]*?)<\/script>/)![1],
  );
  assert.equal(settings.ndcg, "nDCG@10");
});

Deno.test("renderReport: the page's script never writes text as HTML", async () => {
  const script = await Deno.readTextFile(
    new URL("../../../../lib/report/html/report_script.js", import.meta.url),
  );
  assert.doesNotMatch(script, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  assert.doesNotMatch(script, /<\/script/i);
});

Deno.test("renderReport: no cost plot when every system cost $0, and says so", () => {
  const input = syntheticReport(["bm25", "dense"], 4, "", {
    retrievalOnly: true,
    point: (s) => ({ cost: 0, p50: 1 + s }),
  });
  const html = renderReport(input);
  assert.equal(html.match(/<figure class="plot">/g)?.length, 1);
  assert.match(html, /No plot against cost: every system cost \$0 per question\./);
  assert.match(html, /p50 latency, ms \(log scale\)/);
});
