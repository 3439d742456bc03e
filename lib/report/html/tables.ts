/**
 * The building blocks of the report's tables: a section with its heading, a
 * table in a box that scrolls sideways when the table is wider than the page
 * (its first column stays in view: the page's style makes it sticky), a
 * generic table of rows, and how its cells format numbers, money, shares and
 * intervals.
 *
 * @module
 */

import { type Html, type HtmlValue, markup } from "./html.ts";

/** A row of a generic table: column name -> value. */
export type Row = Readonly<Record<string, unknown>>;

/** A `<section>` with its heading. */
export function section(id: string, title: string, body: HtmlValue): Html {
  return markup`<section id="${id}"><h2>${title}</h2>${body}</section>`;
}

/** A table in its scrolling box (the first column sticks; see page.ts). */
export function tableWrap(table: Html): Html {
  return markup`<div class="table-wrap">${table}</div>`;
}

/** Columns holding US dollars (`total_cost_usd`, `cost_per_question`, `cost_usd`). */
const COST_COLUMN = /(^|_)cost(_|$)/;

/** A plain table of `rows` in `columns` order, in its scrolling box; numbers right-aligned. */
export function genericTable(columns: readonly string[], rows: readonly Row[]): Html {
  const head = columns.map((c) => markup`<th>${c}</th>`);
  const body = rows.map((r) =>
    markup`<tr>${
      columns.map((c) => {
        const v = r[c];
        // A null cost is an unknown price: empty, as in the CSV (never "$0", nor "-" for n/a).
        const none = v === null && COST_COLUMN.test(c) ? "" : "-";
        return typeof v === "number"
          ? markup`<td class="num">${formatCell(v)}</td>`
          : markup`<td>${v === null || v === undefined ? none : String(v)}</td>`;
      })
    }</tr>`
  );
  return tableWrap(markup`<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`);
}

/** A mean with its 95 % interval, or "-". */
export function interval(
  i: { mean: number; low: number; high: number } | null | undefined,
): Html {
  return i
    ? markup`${i.mean.toFixed(3)} <small>[${i.low.toFixed(3)}, ${i.high.toFixed(3)}]</small>`
    : markup`-`;
}

/** A number with `digits` decimals, or "-". */
export function num(v: unknown, digits: number): string {
  return typeof v === "number" ? v.toFixed(digits) : "-";
}

/** US dollars to three significant digits, or "-". */
export function money(v: unknown): string {
  return typeof v === "number" ? `$${v.toPrecision(3)}` : "-";
}

/** A share as a whole percentage, or "-". */
export function pct(v: unknown): string {
  return typeof v === "number" ? `${Math.round(v * 100)} %` : "-";
}

/** A number as a generic table shows it (integers whole, tiny values in exponent form). */
export function formatCell(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) < 0.001 && v !== 0 ? v.toExponential(2) : v.toFixed(4).replace(/0+$/, "");
}
