/**
 * The modes of `ragbench run --index-cache MODE`: whether built indexes are
 * saved in the cache folder (`indexes-v1/`) and loaded by later runs.
 *
 * - `off`: every index is built, nothing is read or written;
 * - `read`: a saved index is loaded; one that is missing is built, not saved;
 * - `write`: every index is built and saved (replacing an older file);
 * - `read-write`: a saved index is loaded; one that is missing is built and saved.
 *
 * @module
 */

/** The modes, in the order `--help` lists them. */
export const INDEX_CACHE_MODES = ["off", "read", "write", "read-write"] as const;

/** One of {@link INDEX_CACHE_MODES}. */
export type IndexCacheMode = typeof INDEX_CACHE_MODES[number];
