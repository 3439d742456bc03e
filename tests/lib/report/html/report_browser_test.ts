/**
 * Opens `report.html` in headless Chromium and checks what a reader sees:
 * no console errors; the result list (rows per system, a trace opens,
 * filters, paging); plot labels whose drawn boxes overlap no other label
 * and no point, with every system named; tables that scroll inside their box
 * with the first column in place; the matrix of answers at 200 questions × 10
 * systems; per-question nDCG; hostile text that stays text. Screenshots of
 * each part are written to the folder named by RAGBENCH_SCREENSHOTS (for a
 * person to look at), else to a temporary folder. Skipped, with a message,
 * only where Chromium is not installed (`.ci/run` installs Debian's
 * `chromium`).
 */

import assert from "node:assert/strict";
import { renderReport } from "../../../../lib/report/html/report.ts";
import { findChromium, startBrowser } from "../../../support/headless_chromium.ts";
import { LABEL_CLASHES, openReport, shoot } from "../../../support/report_page.ts";
import { syntheticReport } from "../../../support/report_input.ts";
import { tempTree } from "../../../support/temp.ts";

const chromium = findChromium();
if (!chromium) {
  // deno-lint-ignore no-console
  console.error("report_browser_test: Chromium is not installed; the browser test is skipped.");
}

Deno.test({
  name:
    "report.html in headless Chromium: list, plots, scrolling tables, matrix, nDCG, hostile text",
  ignore: chromium === null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await using tree = await tempTree();
    const shots = Deno.env.get("RAGBENCH_SCREENSHOTS") ?? tree.dir;
    await Deno.mkdir(shots, { recursive: true });
    await using browser = await startBrowser(chromium!);

    await t.step("the result list: rows per system, a trace opens, filters and pages", async () => {
      await openReport(
        browser,
        tree.dir,
        "list",
        renderReport(syntheticReport(["alpha", "beta", "gamma"], 70)),
      );
      assert.equal(
        await browser.evaluate<number>(
          "document.querySelectorAll('#summary-table tbody tr').length",
        ),
        3,
      );
      // 210 lines, 50 a page.
      assert.equal(
        await browser.evaluate<number>(
          "document.querySelectorAll('#questions-table tr.row').length",
        ),
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
        document.getElementById('next-page').click();
        return document.getElementById('page-info').textContent;
      })()`);
      // beta fails where 3i % 3 == 0: every question (70), so 2 pages; "next" stops at the last.
      assert.equal(filtered, "70 lines · page 2 of 2");
      await shoot(browser, shots, "list", "#questions");
      assert.deepEqual(browser.errors, []);
    });

    await t.step(
      "plot labels overlap no label and no point as drawn, and name every system",
      async () => {
        // The bench's shape: three systems at one spot, fast ones crowding the left of the latency
        // axis; then twelve systems at nearly the same cost and latency.
        const bench = [0.1, 0.3, 0.3, 0.3, 0.5, 0.4, 0.6, 199, 0.1];
        const names = [
          "closed_book",
          "rag_bm25",
          "rag_vector",
          "rag_hybrid",
          "agent_search_only",
          "agent_with_tools",
          "agent_all_tools",
          "code_agent",
          "grep_agent",
        ];
        const cases = [
          {
            name: "plots-bench",
            input: syntheticReport(names, 21, "An answer.", {
              point: (s) => ({ cost: [1, 7, 7, 7, 15, 51, 77, 38, 27][s] * 1e-5, p50: bench[s] }),
            }),
          },
          {
            name: "plots-crowded",
            input: syntheticReport(
              Array.from({ length: 12 }, (_, i) => `system_with_a_long_name_${i}`),
              12,
              "An answer.",
              { point: (s) => ({ cost: 0.001 + (s % 3) * 1e-6, p50: 40 + (s % 4) * 0.2 }) },
            ),
          },
        ];
        for (const { name, input } of cases) {
          await openReport(browser, tree.dir, name, renderReport(input));
          const result = await browser.evaluate<
            { clashes: string[]; named: string[][]; plots: number }
          >(LABEL_CLASHES);
          assert.equal(result.plots, 2);
          assert.deepEqual(result.clashes, [], name);
          const systems = input.systems.map((s) => s.name).sort();
          for (const named of result.named) assert.deepEqual(named, systems, name);
          await shoot(browser, shots, name, "#plots");
        }
        assert.deepEqual(browser.errors, []);
      },
    );

    await t.step(
      "a wide table scrolls inside its box, its first column staying in view",
      async () => {
        const names = Array.from({ length: 8 }, (_, i) => `system_number_${i}`);
        await openReport(
          browser,
          tree.dir,
          "narrow",
          renderReport(syntheticReport(names, 10)),
          700,
        );
        const seen = await browser.evaluate<
          { page: [number, number]; box: [number, number]; before: number[]; after: number[] }
        >(`(() => {
        const wrap = document.querySelector('#summary-table').parentElement;
        const cells = () => {
          const row = document.querySelector('#summary-table tbody tr');
          return [wrap.getBoundingClientRect().left, row.children[0].getBoundingClientRect().left,
            row.children[3].getBoundingClientRect().left];
        };
        const before = cells();
        wrap.scrollLeft = 200;
        const after = cells();
        return {
          page: [document.documentElement.scrollWidth, document.documentElement.clientWidth],
          box: [wrap.scrollWidth, wrap.clientWidth],
          before,
          after,
        };
      })()`);
        // The page itself does not scroll sideways; the table's box does.
        assert.ok(seen.page[0] <= seen.page[1], `page ${seen.page}`);
        assert.ok(seen.box[0] > seen.box[1] + 200, `box ${seen.box}`);
        // The first column stays at the box's left edge; the fourth moved 200 px left.
        assert.ok(Math.abs(seen.after[1] - seen.after[0]) < 1, JSON.stringify(seen));
        assert.ok(Math.abs(seen.before[2] - seen.after[2] - 200) < 1, JSON.stringify(seen));
        await shoot(browser, shots, "narrow-summary", "#summary");
        assert.deepEqual(browser.errors, []);
      },
    );

    await t.step(
      "the matrix: 200 questions × 10 systems, a page at a time, filters, a trace",
      async () => {
        const names = Array.from({ length: 10 }, (_, i) => `sys${i}`);
        const html = renderReport(syntheticReport(names, 200, "A fairly ordinary answer."));
        // The matrix is drawn from the data the list uses: no second copy of 2,000 answers.
        assert.ok(html.length < 4_000_000, String(html.length));
        await openReport(browser, tree.dir, "matrix", html);
        const first = await browser.evaluate<
          {
            info: string;
            heads: string[];
            rows: number;
            cells: number;
            pass: number;
            elements: number;
          }
        >(`(() => ({
        info: document.getElementById('matrix-info').textContent,
        heads: [...document.querySelectorAll('#matrix-table thead th')].map((th) => th.textContent),
        rows: document.querySelectorAll('#matrix-table tbody tr').length,
        cells: document.querySelectorAll('#matrix-table td.cell').length,
        pass: document.querySelectorAll('#matrix-table td.cell.pass').length,
        elements: document.querySelectorAll('*').length,
      }))()`);
        assert.equal(first.info, "200 questions · page 1 of 10");
        assert.equal(first.heads.length, 11);
        // sys0 fails where 2i % 3 == 0: 67 of 200 questions.
        assert.equal(first.heads[1], "sys0133/200 pass");
        assert.equal(first.rows, 20);
        assert.equal(first.cells, 200);
        // Row i, system s passes unless i(s+2) % 3 == 0.
        let expected = 0;
        for (let i = 0; i < 20; i++) for (let s = 0; s < 10; s++) if ((i * (s + 2)) % 3) expected++;
        assert.equal(first.pass, expected);
        // The page holds one page of cells, not 2,000 (the list's 50 rows included).
        assert.ok(first.elements < 4000, String(first.elements));
        const opened = await browser.evaluate<{ steps: number; checks: number; summary: string }>(
          `(() => {
          const details = document.querySelector('#matrix-table td.cell details');
          details.open = true;
          details.dispatchEvent(new Event('toggle'));
          return {
            steps: details.querySelectorAll('.step').length,
            checks: details.querySelectorAll('ul.checks li').length,
            summary: details.querySelector('summary').textContent,
          };
        })()`,
        );
        assert.deepEqual(opened, { steps: 3, checks: 2, summary: "3 steps: model ×2, search ×1" });
        const filtered = await browser.evaluate<string[]>(`(() => {
        const out = [];
        const show = document.getElementById('matrix-show');
        show.value = 'all-fail';
        show.dispatchEvent(new Event('change'));
        out.push(document.getElementById('matrix-info').textContent);
        show.value = 'disagree';
        show.dispatchEvent(new Event('change'));
        out.push(document.getElementById('matrix-info').textContent);
        document.getElementById('matrix-next-page').click();
        out.push(document.getElementById('matrix-info').textContent);
        show.value = 'all';
        show.dispatchEvent(new Event('change'));
        const find = document.getElementById('matrix-find');
        find.value = 'tower number 17?';
        find.dispatchEvent(new Event('input'));
        out.push(document.getElementById('matrix-info').textContent);
        return out;
      })()`);
        // System s fails question i where i(s+2) % 3 == 0: count the questions every system fails
        // and those some but not all fail, as the filters should.
        let allFail = 0;
        let disagree = 0;
        for (let i = 0; i < 200; i++) {
          const failed = names.filter((_, s) => (i * (s + 2)) % 3 === 0).length;
          if (failed === 10) allFail++;
          else if (failed > 0) disagree++;
        }
        assert.deepEqual(filtered, [
          `${allFail} questions · page 1 of ${Math.ceil(allFail / 20)}`,
          `${disagree} questions · page 1 of ${Math.ceil(disagree / 20)}`,
          `${disagree} questions · page 2 of ${Math.ceil(disagree / 20)}`,
          "1 question · page 1 of 1",
        ]);
        await browser.evaluate(`(() => {
        const find = document.getElementById('matrix-find');
        find.value = '';
        find.dispatchEvent(new Event('input'));
      })()`);
        await shoot(browser, shots, "matrix", "#matrix");
        assert.deepEqual(browser.errors, []);
      },
    );

    await t.step("the matrix shows one repeat at a time, picked in its repeat menu", async () => {
      const input = syntheticReport(["a", "b"], 3, "first");
      const again = input.lines.map((l) => ({
        ...l,
        repeat: 2,
        answer: `second ${l.question_id}`,
      }));
      await openReport(
        browser,
        tree.dir,
        "repeats",
        renderReport({ ...input, lines: [...input.lines, ...again] }),
      );
      const seen = await browser.evaluate<string[][]>(`(() => {
        const cells = () => [...document.querySelectorAll('#matrix-table td.cell .cell-answer')]
          .map((c) => c.textContent);
        const out = [cells()];
        const repeat = document.getElementById('matrix-repeat');
        out.push([...repeat.options].map((o) => o.textContent), [String(repeat.parentElement.hidden)]);
        repeat.value = '2';
        repeat.dispatchEvent(new Event('change'));
        out.push(cells());
        return out;
      })()`);
      const first = ["first (0)", "first (0)", "first (1)", "first (1)", "first (2)", "first (2)"];
      assert.deepEqual(seen, [
        first,
        ["repeat 1", "repeat 2"],
        ["false"],
        ["second q0", "second q0", "second q1", "second q1", "second q2", "second q2"],
      ]);
      assert.deepEqual(browser.errors, []);
    });

    await t.step(
      "retrieval runs show each question's nDCG in the list and the matrix",
      async () => {
        const input = syntheticReport(["bm25", "dense"], 30, "", {
          retrievalOnly: true,
          ndcg: (s, i) => ((i + s) % 4) / 4,
        });
        await openReport(browser, tree.dir, "ndcg", renderReport(input));
        const seen = await browser.evaluate<{ head: string[]; first: string[]; cell: string }>(
          `(() => ({
          head: [...document.querySelectorAll('#questions-table thead th')].map((th) => th.textContent),
          first: [...document.querySelector('#questions-table tr.row').children].map((td) => td.textContent),
          cell: document.querySelector('#matrix-table tbody tr td.cell .figures').textContent,
        }))()`,
        );
        assert.deepEqual(seen.head, [
          "system",
          "question",
          "kind",
          "status",
          "score",
          "nDCG@10",
          "ms",
          "answer",
        ]);
        assert.deepEqual(seen.first.slice(3, 6), ["unscored", "-", "0.000"]);
        assert.equal(seen.cell, "nDCG@10 0.00 · 10 ms");
        await shoot(browser, shots, "ndcg-matrix", "#matrix");
        assert.deepEqual(browser.errors, []);
      },
    );

    await t.step("hostile questions, answers and system names stay text everywhere", async () => {
      const evil =
        `</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">`;
      const input = syntheticReport([`<b onmouseover="window.__pwned = 3">sys</b>`, "b"], 3, evil, {
        question: () => `<svg onload="window.__pwned = 4"></svg>${evil}`,
      });
      await openReport(browser, tree.dir, "hostile", renderReport(input));
      const seen = await browser.evaluate<
        { pwned: unknown; imgs: number; scripts: number; bold: number; cell: string; q: string }
      >(`(() => {
        const details = document.querySelector('#matrix-table td.cell details');
        details.open = true;
        details.dispatchEvent(new Event('toggle'));
        document.querySelector('#questions-table tr.row').click();
        return {
          pwned: window.__pwned ?? null,
          imgs: document.querySelectorAll('img').length,
          scripts: document.querySelectorAll('script').length,
          bold: document.querySelectorAll('b').length,
          cell: document.querySelector('#matrix-table td.cell .cell-answer').textContent,
          q: document.querySelector('#matrix-table th.question .qtext').textContent,
        };
      })()`);
      assert.deepEqual(
        { ...seen, cell: seen.cell.slice(0, evil.length), q: seen.q.slice(0, 35) },
        {
          pwned: null,
          imgs: 0,
          // The data, the settings and the page's own script; nothing a model wrote.
          scripts: 3,
          bold: 0,
          cell: evil,
          q: `<svg onload="window.__pwned = 4"></`,
        },
      );
      assert.deepEqual(browser.errors, []);
    });
  },
});
