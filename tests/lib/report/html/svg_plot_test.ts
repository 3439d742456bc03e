import assert from "node:assert/strict";
import { type Box, overlaps } from "../../../../lib/report/html/label_layout.ts";
import { formatMs, logAxis } from "../../../../lib/report/html/plot_axis.ts";
import { type PlotPoint, scatterPlot } from "../../../../lib/report/html/svg_plot.ts";
import { textWidth } from "../../../../lib/report/html/text_width.ts";

const LATENCY = {
  title: "Score against median latency",
  xLabel: "p50 latency, ms",
  yLabel: "answer score",
  better: "faster",
  logX: true,
};

/** The bench's nine systems: three share a spot, the fast ones crowd the left. */
const BENCH: PlotPoint[] = [
  { label: "closed_book", x: 0.1, y: 0.31 },
  { label: "rag_bm25", x: 0.3, y: 0.714 },
  { label: "rag_vector", x: 0.3, y: 0.714 },
  { label: "rag_hybrid", x: 0.3, y: 0.714 },
  { label: "agent_search_only", x: 0.5, y: 0.762 },
  { label: "agent_with_tools", x: 0.4, y: 0.905 },
  { label: "agent_all_tools", x: 0.6, y: 1 },
  { label: "code_agent", x: 199.3, y: 0.905 },
  { label: "grep_agent", x: 0.1, y: 0.571 },
];

function unescape(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'").replace(/&amp;/g, "&");
}

/** The label texts of a plot with the boxes their text is drawn in (the layout's own estimate). */
function labels(svg: string): Array<{ text: string; box: Box }> {
  return [
    ...svg.matchAll(/<text x="([-0-9.]+)" y="([-0-9.]+)" class="label[^"]*">([^<]*)<\/text>/g),
  ]
    .map((m) => {
      const text = unescape(m[3]);
      const x = Number(m[1]);
      const y = Number(m[2]);
      return {
        text,
        box: { x0: x, y0: y - 0.93 * 11.5, x1: x + textWidth(text, 11.5), y1: y + 0.24 * 11.5 },
      };
    });
}

function keyed(svg: string): string[] {
  return [...svg.matchAll(/<li value="\d+">([^<]*) <small>/g)].map((m) => unescape(m[1]));
}

Deno.test("scatterPlot joins the Pareto front and marks its points", () => {
  const svg = scatterPlot([
    { label: "cheap", x: 1, y: 0.5 },
    { label: "dear", x: 10, y: 0.9 },
    { label: "dominated", x: 5, y: 0.4 },
  ], { title: "t", xLabel: "cost", yLabel: "score", better: "cheaper" }).text;
  assert.equal(svg.match(/<polyline /g)?.length, 1);
  assert.equal(svg.match(/class="point on-front"/g)?.length, 2);
  assert.equal(svg.match(/class="point"/g)?.length, 1);
  assert.match(svg, /<title>dominated: 5\.0, score 0\.400<\/title>/);
  assert.match(svg, /Pareto front: no other system is both better and cheaper/);
  assert.match(svg, /class="direction">← cheaper</);
});

Deno.test("the latency plot has a log axis whose caption says left is faster", () => {
  const svg = scatterPlot(BENCH, LATENCY).text;
  assert.match(svg, />p50 latency, ms \(log scale\)</);
  assert.match(svg, /class="direction">← faster</);
  assert.match(svg, /both better and faster/);
  const ticks = [...svg.matchAll(/class="tick">([^<]*)</g)].map((m) => m[1]);
  assert.deepEqual(ticks.slice(5), ["0.1", "1", "10", "100", "1 s"]);
  // On a log axis 0.1 ms and 0.3 ms are far apart; on a linear one to 200 ms they were 0.3 px apart.
  const cx = (label: string) =>
    Number(svg.match(new RegExp(`cx="([0-9.]+)"[^>]*><title>${label}:`))![1]);
  assert.ok(cx("rag_bm25") - cx("closed_book") > 40);
});

Deno.test("scatterPlot: no two labels overlap, and every system is named once, by label or key", () => {
  for (const points of [BENCH, crowded(14), crowded(30)]) {
    for (const logX of [true, false]) {
      const svg = scatterPlot(points, { ...LATENCY, logX }).text;
      const placed = labels(svg);
      for (const a of placed) {
        for (const b of placed) {
          if (a !== b) assert.ok(!overlaps(a.box, b.box), `"${a.text}" overlaps "${b.text}"`);
        }
      }
      const named = [
        ...placed.filter((l) => !/^\d+$/.test(l.text)).flatMap((l) => l.text.split(", ")),
        ...keyed(svg).flatMap((k) => k.split(", ")),
      ].sort();
      assert.deepEqual(named, points.map((p) => p.label).sort());
      // Every keyed number is drawn beside its point, once.
      const numbers = placed.filter((l) => /^\d+$/.test(l.text)).map((l) => Number(l.text));
      assert.deepEqual(numbers.sort((a, b) => a - b), keyed(svg).map((_, i) => i + 1));
    }
  }
});

Deno.test("scatterPlot: systems at the same spot share one label (or one key entry)", () => {
  for (const logX of [true, false]) {
    const svg = scatterPlot(BENCH, { ...LATENCY, logX }).text;
    const names = [...labels(svg).map((l) => l.text), ...keyed(svg)];
    assert.ok(names.includes("rag_bm25, rag_vector, rag_hybrid"), names.join(" | "));
  }
});

Deno.test("scatterPlot keys by number the labels that fit nowhere", () => {
  const svg = scatterPlot(crowded(30), LATENCY).text;
  const keys = keyed(svg);
  assert.ok(keys.length > 0);
  const numbers = labels(svg).filter((l) => /^\d+$/.test(l.text)).map((l) => Number(l.text));
  assert.ok(numbers.length > 0);
  for (const n of numbers) assert.ok(n >= 1 && n <= keys.length);
  assert.match(svg, /<ol class="plot-key"><li value="1">/);
});

Deno.test("scatterPlot escapes a hostile system name in labels, tooltips and key", () => {
  const evil = `</text><script>alert(1)</script><text>`;
  const svg = scatterPlot([{ label: evil, x: 1, y: 0.5 }, { label: "b", x: 2, y: 0.6 }], LATENCY)
    .text;
  assert.doesNotMatch(svg, /<script>/);
  assert.match(svg, /&lt;\/text&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;&lt;text&gt;/);
});

Deno.test("logAxis: a tick every decade, 2 and 5 between on a short axis; 0 at the left end", () => {
  const long = logAxis([0.05, 3000], formatMs);
  assert.deepEqual(long.ticks.map((t) => t.label), [
    "0.01",
    "0.1",
    "1",
    "10",
    "100",
    "1 s",
    "10 s",
  ]);
  const short = logAxis([3, 40], formatMs);
  assert.deepEqual(short.ticks.map((t) => t.label), ["1", "2", "5", "10", "20", "50", "100"]);
  assert.equal(short.position(1), 0);
  assert.equal(short.position(100), 1);
  assert.ok(Math.abs(short.position(10) - 0.5) < 1e-12);
  assert.equal(short.position(0), 0);
  assert.ok(short.below(0) && !short.below(3));
  // One value, or none: still an axis of one decade.
  assert.deepEqual(logAxis([5], formatMs).ticks.map((t) => t.label), ["1", "2", "5", "10"]);
  assert.deepEqual(logAxis([0], formatMs).ticks.map((t) => t.label), ["0.1", "0.2", "0.5", "1"]);
});

/** `n` systems with nearly the same latency and score. */
function crowded(n: number): PlotPoint[] {
  return Array.from({ length: n }, (_, i) => ({
    label: `system_number_${i}`,
    x: 10 + (i % 5) * 0.3,
    y: 0.6 + Math.floor(i / 5) * 0.01,
  }));
}
