/**
 * Opens `report.html` in headless Chromium: no console errors, one summary
 * row per system, a question's trace opens on click, filters and paging
 * work, and a screenshot is taken. Skipped, with a message, only where
 * Chromium is not installed (`.ci/run` installs Debian's `chromium`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { renderReport } from "../../../../lib/report/html/report.ts";
import { findChromium, startBrowser } from "../../../support/headless_chromium.ts";
import { syntheticReport } from "../../../support/report_input.ts";
import { tempTree } from "../../../support/temp.ts";

const chromium = findChromium();
if (!chromium) {
  // deno-lint-ignore no-console
  console.error("report_browser_test: Chromium is not installed; the browser test is skipped.");
}

Deno.test({
  name: "report.html in headless Chromium: no console errors, rows per system, a trace opens",
  ignore: chromium === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await using tree = await tempTree();
    const file = join(tree.dir, "report.html");
    await Deno.writeTextFile(file, renderReport(syntheticReport(["alpha", "beta", "gamma"], 70)));
    await using browser = await startBrowser(chromium!);
    await browser.open(`file://${file}`);
    assert.equal(
      await browser.evaluate<number>("document.querySelectorAll('#summary-table tbody tr').length"),
      3,
    );
    // 210 lines, 50 a page.
    assert.equal(
      await browser.evaluate<number>("document.querySelectorAll('#questions-table tr.row').length"),
      50,
    );
    assert.equal(
      await browser.evaluate<string>("document.getElementById('page-info').textContent"),
      "210 lines · page 1 of 5",
    );
    const steps = await browser.evaluate<number>(`(() => {
      document.querySelector('#questions-table tr.row').click();
      return document.querySelectorAll('#questions-table tr.trace .step').length;
    })()`);
    assert.equal(steps, 3);
    const trace = await browser.evaluate<string>(
      "document.querySelector('#questions-table tr.trace').textContent",
    );
    assert.match(trace, /tool search/);
    assert.match(trace, /numeric_equals/);
    const filtered = await browser.evaluate<string>(`(() => {
      const select = document.getElementById('filter-system');
      select.value = 'beta';
      select.dispatchEvent(new Event('change'));
      const status = document.getElementById('filter-status');
      status.value = 'fail';
      status.dispatchEvent(new Event('change'));
      document.getElementById('next-page').click();
      return document.getElementById('page-info').textContent;
    })()`);
    // beta fails where 3i % 3 == 0: every question (70), so 2 pages; "next" went to page 2.
    assert.equal(filtered, "70 lines · page 2 of 2");
    const png = await browser.screenshot();
    assert.deepEqual([...png.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    await Deno.writeFile(join(tree.dir, "report.png"), png);
    assert.deepEqual(browser.errors, []);
  },
});
