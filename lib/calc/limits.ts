/**
 * The calculator's size limits. Each one bounds time or memory, so that no
 * expression a model can send keeps a worker busy for more than milliseconds:
 * a CPU-bound loop cannot be stopped by terminating its worker.
 *
 * @module
 */

/** Longest expression, in UTF-16 code units. */
export const MAX_EXPRESSION_CHARS = 500;

/** Most syntax nodes (numbers, constants, operators, calls, lists). */
export const MAX_NODES = 200;

/** Deepest nesting of parentheses, brackets, calls and `**` exponents. */
export const MAX_DEPTH = 100;

/** Largest magnitude of an exponent (`x ** k` with |k| <= this). */
export const MAX_EXPONENT = 1000;

/** Most decimal digits in a numerator or denominator, and in a number literal. */
export const MAX_DIGITS = 3000;

/** Largest |n| in `round(x, n)`. */
export const MAX_ROUND_DIGITS = 1000;

/** 10 ** MAX_DIGITS: an integer has at most MAX_DIGITS digits iff its magnitude is below it. */
export const DIGITS_BOUND: bigint = 10n ** BigInt(MAX_DIGITS);

/** log2(DIGITS_BOUND): an integer at least 2 ** this has too many digits, one below fits. */
export const BOUND_LOG2: number = MAX_DIGITS * Math.log2(10);
