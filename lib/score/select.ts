/**
 * An order statistic of a `Float64Array`, selected in place (the ends of the sign-flip test's
 * interval from drawn assignments, `sign_flip.ts`).
 *
 * @module
 */

/**
 * The value that would sit at `index` (0-based) if `values` were sorted ascending — the smallest
 * v with at least `index + 1` values at or under it — found by partitioning `values` in place
 * (Hoare partitions around the median of three; `values` is left in another order). The sign-flip
 * test's drawn assignments weigh 1 each, so the ends of its interval are such order statistics.
 */
export function select(values: Float64Array, index: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (hi > lo) {
    const x = values[lo];
    const y = values[(lo + hi) >>> 1];
    const z = values[hi];
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i] < pivot) i++;
      while (values[j] > pivot) j--;
      if (i <= j) {
        const t = values[i];
        values[i++] = values[j];
        values[j--] = t;
      }
    }
    if (index <= j) hi = j;
    else if (index >= i) lo = i;
    else return values[index];
  }
  return values[index];
}
