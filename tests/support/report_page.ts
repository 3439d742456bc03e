/**
 * Helpers for the report's browser test: open a rendered report in a
 * window of a given width, take a screenshot of one element, and measure
 * the plots' drawn labels against each other and the points.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { BrowserPage } from "./headless_chromium.ts";

/** Writes `report` to `dir`/`name`.html and opens it in a `width`-pixel-wide window. */
export async function openReport(
  browser: BrowserPage,
  dir: string,
  name: string,
  html: string,
  width = 1280,
): Promise<void> {
  const file = join(dir, `${name}.html`);
  await Deno.writeTextFile(file, html);
  await browser.resize(width, 1000);
  await browser.open(`file://${file}`);
}

/** A screenshot of the element `selector` into `dir`/`name`.png; checks it is a PNG. */
export async function shoot(browser: BrowserPage, dir: string, name: string, selector: string) {
  const height = await browser.evaluate<number>(
    `document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().height`,
  );
  const width = await browser.evaluate<number>("window.innerWidth");
  await browser.resize(width, Math.min(4000, Math.ceil(height) + 16));
  const clip = await browser.evaluate<{ x: number; y: number; width: number; height: number }>(
    `(() => {
      const e = document.querySelector(${JSON.stringify(selector)});
      e.scrollIntoView();
      const r = e.getBoundingClientRect();
      return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: Math.min(r.height, 4000) };
    })()`,
  );
  const png = await browser.screenshot(clip);
  assert.deepEqual([...png.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  await Deno.writeFile(join(dir, `${name}.png`), png);
}

/** In the page: every pair of plot labels, and every label against every point, as drawn. */
export const LABEL_CLASHES = `(() => {
  const clashes = [];
  const named = [];
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
    a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (const svg of document.querySelectorAll("svg.plot")) {
    const frame = svg.getBoundingClientRect();
    const labels = [...svg.querySelectorAll("text.label")].map((t) => ({ text: t.textContent, box: t.getBoundingClientRect() }));
    const points = [...svg.querySelectorAll("circle.point")].map((c) => c.getBoundingClientRect());
    for (const [i, a] of labels.entries()) {
      if (a.box.left < frame.left || a.box.right > frame.right || a.box.top < frame.top || a.box.bottom > frame.bottom) {
        clashes.push(a.text + " leaves the plot");
      }
      for (const b of labels.slice(i + 1)) if (meet(a.box, b.box)) clashes.push(a.text + " / " + b.text);
      for (const p of points) if (meet(a.box, p)) clashes.push(a.text + " covers a point");
    }
    const key = [...svg.parentElement.querySelectorAll(".plot-key li")].map((li) => li.firstChild.textContent.trim());
    named.push([...labels.map((l) => l.text).filter((t) => !/^\\d+$/.test(t)), ...key].flatMap((t) => t.split(", ")).sort());
    // Every keyed number is drawn beside its point, once.
    const numbers = labels.map((l) => l.text).filter((t) => /^\\d+$/.test(t)).map(Number).sort((a, b) => a - b);
    if (numbers.join() !== key.map((_, i) => i + 1).join()) clashes.push("numbers drawn: " + numbers + " of " + key.length);
  }
  return { clashes, named, plots: document.querySelectorAll("svg.plot").length };
})()`;
