/**
 * `lookup_table`: exact row lookups in the corpus's CSV / JSON tables, so a
 * model can read a cell instead of searching prose for a figure.
 *
 * Matching rules a caller may rely on:
 * - A `where` value matches a cell when both, as text, are equal ignoring case
 *   and surrounding spaces; numbers and booleans are compared by their string
 *   form (`{"year": 2020}` matches the cell "2020" and the JSON cell 2020).
 * - Column names in `where` and `select` are matched the same way, so `Year`
 *   finds the column `year`.
 * - `where: {}` matches every row (a way to see a table's first rows).
 * - A `where` or `select` column that no candidate table has is an
 *   `invalid_args` error listing the columns that exist, with a did-you-mean.
 * - A corpus without tables gives an `unavailable` error; a `source` that
 *   matches no table gives `not_found`. No matching row is not an error: the
 *   output says so and suggests the closest existing value.
 *
 * @module
 */

import { z } from "zod";
import { defineTool, toolError, toolResult } from "./define_tool.ts";
import type { Cell, JsonValue, Table } from "../lib/types.ts";
import { closestMatch } from "../lib/util/did_you_mean.ts";

const MAX_LIMIT = 100;
// Bounds on what an error message lists, so one bad call cannot flood the context.
const MAX_TABLES_LISTED = 10;
const MAX_COLUMNS_LISTED = 30;
// Distinct values scanned for a did-you-mean when nothing matched.
const MAX_VALUES_SCANNED = 20_000;

const parameters = z.strictObject({
  where: z.record(
    z.string().max(200),
    z.union([z.string().max(1000), z.number(), z.boolean()]),
  ).refine((w) => Object.keys(w).length <= 50, "at most 50 columns").describe(
    'Column values a row must have, e.g. {"product": "HarborShield", "year": 2020}. Column ' +
      "names and values are compared ignoring case and surrounding spaces. {} matches every row.",
  ),
  select: z.array(z.string().max(200)).max(100).optional().describe(
    "Columns to return, in this order (default: all columns of the table).",
  ),
  source: z.string().max(500).optional().describe(
    "Only tables whose file path or title contains this text (case-insensitive).",
  ),
  limit: z.int().min(1).max(MAX_LIMIT).default(5).describe(
    `Most rows to return (1-${MAX_LIMIT}).`,
  ),
});

/** The built-in `lookup_table` tool: rows of the corpus tables by column value. */
export const lookupTable = defineTool({
  name: "lookup_table",
  description: "Look up rows of the CSV / JSON tables in the collection by column value and " +
    "return the chosen columns. Gives exact cell values instead of searching prose.",
  parameters,
  sideEffects: "none",
  run(args, ctx) {
    const tables = ctx.corpus.tables;
    if (tables.length === 0) {
      return toolError(
        "unavailable",
        "The collection has no tables (CSV or JSON files), so there is nothing to look up: " +
          "use search or corpus_grep on the documents instead.",
      );
    }
    const source = args.source;
    const candidates = source === undefined
      ? tables
      : tables.filter((t) => containsFolded(t.source, source) || containsFolded(t.title, source));
    if (candidates.length === 0) {
      return toolError(
        "not_found",
        `No table's path or title contains "${source}". Tables: ${tableList(tables)}.`,
      );
    }

    const conditions = Object.entries(args.where).map(([column, value]) => ({
      column,
      key: fold(column),
      value: fold(String(value)),
      shown: String(value),
    }));
    const select = args.select && args.select.length ? args.select : undefined;
    const asked = [
      ...conditions.map((c) => ({ argument: "where", column: c.column })),
      ...(select ?? []).map((column) => ({ argument: "select", column })),
    ];
    const unknown = asked.find(({ column }) =>
      !candidates.some((t) => columnOf(t, column) !== undefined)
    );
    if (unknown) {
      return unknownColumn(unknown.argument, unknown.column, candidates, source);
    }

    const results: Array<{ doc_id: string; row: Record<string, JsonValue> }> = [];
    const lines: string[] = [];
    let matched = 0;
    for (const table of candidates) {
      const resolved = resolveConditions(table, conditions);
      if (resolved === undefined) continue;
      const shownColumns = select
        ? select.map((s) => columnOf(table, s)).filter((c): c is string => c !== undefined)
        : table.columns;
      for (const row of table.rows) {
        if (!resolved.every((c) => fold(cellText(cellOf(row, c.column))) === c.value)) continue;
        matched++;
        if (results.length >= args.limit) continue;
        const picked: Record<string, JsonValue> = Object.create(null);
        for (const column of shownColumns) picked[column] = cellOf(row, column);
        results.push({ doc_id: table.source, row: picked });
        lines.push(
          `${table.source}: ${
            shownColumns.map((column) => `${column}=${oneLine(cellText(picked[column] as Cell))}`)
              .join("; ")
          }`,
        );
      }
    }

    if (matched === 0) {
      return toolResult({
        output: noMatchMessage(conditions, candidates),
        data: { results: [] },
      });
    }
    if (matched > results.length) {
      const more = matched - results.length;
      lines.push(
        `${more} more matching ${more === 1 ? "row" : "rows"} not shown: raise limit or add ` +
          "conditions.",
      );
    }
    return toolResult({ output: lines.join("\n"), data: { results } });
  },
});

interface Condition {
  column: string;
  key: string;
  value: string;
  shown: string;
}

/** The conditions with the table's own column names, or undefined when it lacks one. */
function resolveConditions(
  table: Table,
  conditions: Condition[],
): Array<{ column: string; value: string }> | undefined {
  const resolved: Array<{ column: string; value: string }> = [];
  for (const condition of conditions) {
    const column = columnOf(table, condition.key);
    if (column === undefined) return undefined;
    resolved.push({ column, value: condition.value });
  }
  return resolved;
}

/** Case- and space-insensitive form used for every comparison. */
function fold(text: string): string {
  return text.trim().toLowerCase();
}

function containsFolded(haystack: string, needle: string): boolean {
  return haystack.toLowerCase().includes(needle.trim().toLowerCase());
}

/** The table's own spelling of `name`, matched ignoring case and spaces. */
function columnOf(table: Table, name: string): string | undefined {
  const key = fold(name);
  return table.columns.find((column) => fold(column) === key);
}

/** A row's cell; own properties only, so a column named "constructor" cannot reach the prototype. */
function cellOf(row: Record<string, Cell>, column: string): Cell {
  return Object.hasOwn(row, column) ? row[column] ?? null : null;
}

function cellText(cell: Cell): string {
  return cell === null || cell === undefined ? "" : String(cell);
}

/** Keeps one row per output line. */
function oneLine(text: string): string {
  return text.replace(/\r\n|\r|\n/g, " ");
}

function unknownColumn(
  argument: string,
  column: string,
  candidates: Table[],
  source: string | undefined,
) {
  const known = [...new Set(candidates.flatMap((t) => t.columns))];
  const hint = closestMatch(column, known);
  const perTable = candidates.slice(0, MAX_TABLES_LISTED).map((t) => {
    const columns = t.columns.slice(0, MAX_COLUMNS_LISTED).join(", ");
    return `${t.source} (${columns}${t.columns.length > MAX_COLUMNS_LISTED ? ", …" : ""})`;
  });
  const more = candidates.length > MAX_TABLES_LISTED
    ? `; and ${candidates.length - MAX_TABLES_LISTED} more tables`
    : "";
  return toolError(
    "invalid_args",
    `${argument}: no table${source === undefined ? "" : ` matching source "${source}"`} has ` +
      `a column "${column}"` +
      `${hint ? ` — did you mean "${hint}"?` : "."} Columns: ${perTable.join("; ")}${more}.`,
  );
}

function tableList(tables: Table[]): string {
  const shown = tables.slice(0, MAX_TABLES_LISTED).map((t) =>
    t.title && t.title !== t.source ? `${t.source} ("${t.title}")` : t.source
  );
  const more = tables.length > MAX_TABLES_LISTED
    ? `, and ${tables.length - MAX_TABLES_LISTED} more`
    : "";
  return shown.join(", ") + more;
}

/**
 * Why nothing matched: names each condition that no row meets on its own,
 * with the closest existing value when one is near.
 */
function noMatchMessage(conditions: Condition[], candidates: Table[]): string {
  const wanted = conditions.map((c) => `${c.column}=${c.shown}`).join(", ");
  const notes: string[] = [];
  for (const condition of conditions) {
    const values = new Set<string>();
    let found = false;
    for (const table of candidates) {
      const column = columnOf(table, condition.key);
      if (column === undefined) continue;
      for (const row of table.rows) {
        const text = cellText(cellOf(row, column)).trim();
        if (fold(text) === condition.value) {
          found = true;
          break;
        }
        if (values.size < MAX_VALUES_SCANNED) values.add(text);
      }
      if (found) break;
    }
    if (found) continue;
    const close = closestMatch(condition.shown.trim(), values) ??
      [...values].find((v) => v.toLowerCase().includes(condition.value) && condition.value !== "");
    notes.push(
      `no row has ${condition.column}=${condition.shown}` +
        (close === undefined ? "" : ` (closest value: "${oneLine(close)}")`),
    );
  }
  const why = notes.length
    ? `: ${notes.join("; ")}`
    : " (each condition matches some row, but no row meets all of them)";
  return `No rows match ${wanted}${why}.`;
}
