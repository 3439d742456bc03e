/**
 * CSV writing for the summary files. Text cells are quoted when they need it
 * (comma, quote, line break, surrounding space), and a text cell starting
 * with `=`, `+`, `-`, `@`, tab or carriage return is prefixed with `'` so a
 * spreadsheet shows it instead of running it as a formula. Numbers stay
 * numbers (a negative number is not neutralised); null is an empty cell.
 *
 * @module
 */

/** A CSV cell value. */
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

/** Renders one cell. Numbers are rounded to at most 6 decimals, deterministically. */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  let text = value;
  if (FORMULA_START.test(text)) text = `'${text}`;
  if (/[",\r\n]/.test(text) || text !== text.trim()) text = `"${text.replaceAll('"', '""')}"`;
  return text;
}

/** A number as CSV text: integers as is, others rounded to 6 decimals without trailing zeros. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return "";
  if (Number.isInteger(value)) return String(value);
  const fixed = value.toFixed(6).replace(/0+$/, "").replace(/\.$/, "");
  return fixed === "-0" ? "0" : fixed;
}

/** The whole CSV text (header plus rows, `\n` line ends) for `rows` in `columns` order. */
export function toCsv<T extends object>(
  columns: ReadonlyArray<keyof T>,
  rows: readonly T[],
): string {
  const lines = [columns.map((c) => csvCell(String(c))).join(",")];
  for (const row of rows) {
    lines.push(columns.map((c) => csvCell(row[c] as CsvValue)).join(","));
  }
  return lines.join("\n") + "\n";
}
