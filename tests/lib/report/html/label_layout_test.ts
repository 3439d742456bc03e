import assert from "node:assert/strict";
import {
  type Box,
  clusterPoints,
  type LabelPoint,
  overlaps,
  type PlacedLabel,
  placeLabels,
} from "../../../../lib/report/html/label_layout.ts";
import { textWidth } from "../../../../lib/report/html/text_width.ts";
import { createRng } from "../../../../lib/util/prng.ts";

const AREA: Box = { x0: 0, y0: 0, x1: 500, y1: 300 };
const FONT = 11.5;

/** Every placed label: inside the area, clear of every other label and every marker. */
function assertClear(points: readonly LabelPoint[], placed: ReadonlyArray<PlacedLabel | null>) {
  const boxes = placed.flatMap((p, i) => (p ? [{ i, box: p.box }] : []));
  for (const { i, box } of boxes) {
    assert.ok(box.x0 >= AREA.x0 && box.x1 <= AREA.x1 && box.y0 >= AREA.y0 && box.y1 <= AREA.y1);
    // The box is as wide as the text (erring wide), and the text starts at its left edge.
    assert.ok(box.x1 - box.x0 >= textWidth(points[i].text, FONT) - 1e-9);
    assert.equal(placed[i]!.x, box.x0);
    for (const other of boxes) {
      if (other.i !== i) assert.ok(!overlaps(box, other.box), `labels ${i} and ${other.i} overlap`);
    }
    for (const p of points) {
      const marker = { x0: p.x - p.r, y0: p.y - p.r, x1: p.x + p.r, y1: p.y + p.r };
      assert.ok(!overlaps(box, marker), `label ${i} covers a point`);
    }
  }
}

Deno.test("placeLabels: on 200 random plots no label overlaps another label or any point", () => {
  const rng = createRng(7);
  let placed = 0;
  let total = 0;
  for (let plot = 0; plot < 200; plot++) {
    const n = 2 + Math.floor(rng() * 14);
    const points = Array.from({ length: n }, (_, i) => ({
      x: 20 + rng() * 460,
      y: 20 + rng() * 260,
      r: rng() < 0.5 ? 6 : 4.5,
      text: `system_${"x".repeat(Math.floor(rng() * 12))}${i}`,
    }));
    const result = placeLabels(points, { area: AREA, fontSize: FONT });
    assertClear(points, result);
    placed += result.filter(Boolean).length;
    total += n;
  }
  // Not a toy: nearly every label finds a place on plots this sparse.
  assert.ok(placed / total > 0.95, `${placed} of ${total} placed`);
});

Deno.test("placeLabels leaves a label unplaced rather than overprint when the points crowd", () => {
  const points = Array.from({ length: 40 }, (_, i) => ({
    x: 250 + (i % 8) * 3,
    y: 150 + Math.floor(i / 8) * 3,
    r: 4.5,
    text: `a_long_system_name_${i}`,
  }));
  const result = placeLabels(points, { area: AREA, fontSize: FONT });
  assertClear(points, result);
  const unplaced = result.filter((p) => p === null).length;
  assert.ok(unplaced > 0 && unplaced < 40, String(unplaced));
});

Deno.test("placeLabels keeps labels off boxes to avoid and prefers not to cross soft lines", () => {
  const point = { x: 100, y: 100, r: 5, text: "rag_bm25" };
  const right = placeLabels([point], { area: AREA, fontSize: FONT })[0]!;
  assert.ok(right.box.x0 > point.x, "the first choice is to the right");
  const avoid = [{ ...right.box }];
  const moved = placeLabels([point], { area: AREA, fontSize: FONT, avoid })[0]!;
  assert.ok(!overlaps(moved.box, avoid[0]));
  // A line through the right-hand place: the label goes elsewhere rather than across it.
  const soft = [{ x1: right.box.x0 + 5, y1: 0, x2: right.box.x0 + 5, y2: 300 }];
  const clear = placeLabels([point], { area: AREA, fontSize: FONT, soft })[0]!;
  assert.ok(clear.box.x1 < soft[0].x1 || clear.box.x0 > soft[0].x1);
});

Deno.test("placeLabels draws a leader line for a label placed away from its point", () => {
  const points = [
    { x: 100, y: 100, r: 6, text: "first" },
    { x: 101, y: 112, r: 6, text: "second" },
    { x: 99, y: 88, r: 6, text: "third" },
  ];
  const result = placeLabels(points, { area: AREA, fontSize: FONT });
  assertClear(points, result);
  for (const [i, p] of result.entries()) {
    if (!p?.leader) continue;
    // The leader starts at its own point's edge and ends on its own label's box.
    const own = points[i];
    assert.ok(Math.hypot(p.leader.x1 - own.x, p.leader.y1 - own.y) <= own.r + 1.01);
    assert.ok(p.leader.x2 >= p.box.x0 - 1e-9 && p.leader.x2 <= p.box.x1 + 1e-9);
  }
});

Deno.test("clusterPoints groups points at the same spot, in order, without chaining", () => {
  assert.deepEqual(
    clusterPoints([{ x: 0, y: 0 }, { x: 50, y: 0 }, { x: 1, y: 1 }, { x: 2.5, y: 2 }], 4),
    [[0, 2, 3], [1]],
  );
  // A row of points 3 apart: groups of points within 4 of a group's first point, not one chain.
  const row = Array.from({ length: 6 }, (_, i) => ({ x: i * 3, y: 0 }));
  assert.deepEqual(clusterPoints(row, 4), [[0, 1], [2, 3], [4, 5]]);
});

Deno.test("textWidth errs wide: wider for wide letters, a full em for other scripts", () => {
  assert.ok(textWidth("WWW", 10) > textWidth("iii", 10));
  assert.equal(textWidth("日本", 10), 20);
  assert.equal(textWidth("😀", 10), 12.5);
  assert.ok(Math.abs(textWidth("agent_all_tools", 11.5) - 87.3) < 0.1);
});
