/**
 * `Math.log` of whole numbers, from a table made once: the statistics sum log-binomial terms
 * term by term (McNemar's tail, a group's sign-flip weights) for thousands of pairs in a report,
 * and a table read gives the same double as the call.
 *
 * @module
 */

/** Largest whole number kept in the table (8 MB of doubles). */
export const WHOLE_LOGS_MAX = (1 << 20) - 1;

let table = new Float64Array(1);

/**
 * A table whose entry i is `Math.log(i)` for every i up to `n` (at least), or undefined when `n`
 * is over {@link WHOLE_LOGS_MAX} (the caller then calls `Math.log`). Entry 0 is not read.
 */
export function wholeLogs(n: number): Float64Array | undefined {
  if (n > WHOLE_LOGS_MAX) return undefined;
  if (table.length <= n) {
    const grown = new Float64Array(Math.min(WHOLE_LOGS_MAX + 1, Math.max(2 * table.length, n + 1)));
    grown.set(table);
    for (let i = table.length; i < grown.length; i++) grown[i] = Math.log(i);
    table = grown;
  }
  return table;
}
