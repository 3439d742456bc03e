import assert from "node:assert/strict";
import { renderReport } from "../../../../lib/report/html/report.ts";
import { paretoFront, scatterPlot } from "../../../../lib/report/html/svg_plot.ts";
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

Deno.test("scatterPlot joins the Pareto front and marks its points", () => {
  const svg = scatterPlot([
    { label: "cheap", x: 1, y: 0.5 },
    { label: "dear", x: 10, y: 0.9 },
    { label: "dominated", x: 5, y: 0.4 },
  ], { title: "t", xLabel: "cost", yLabel: "score" });
  assert.equal(svg.match(/<polyline /g)?.length, 1);
  assert.equal(svg.match(/class="point on-front"/g)?.length, 2);
  assert.equal(svg.match(/class="point"/g)?.length, 1);
  assert.match(svg, /<title>dominated: 5\.0, score 0\.400<\/title>/);
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

Deno.test("renderReport on a 10,000-line run stays under 20 MB", () => {
  const html = renderReport(syntheticReport(["a", "b", "c", "d"], 2500, "x".repeat(3000)));
  const bytes = new TextEncoder().encode(html).length;
  assert.ok(bytes < 20 * 1024 * 1024, `${(bytes / 1e6).toFixed(1)} MB`);
  // Long answers are cut, with the cut said.
  assert.match(html, /x… \[cut; the full text is in the JSONL\]/);
});
