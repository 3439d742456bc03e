/**
 * The ragbench version, from `deno.json`.
 *
 * @module
 */

import meta from "../deno.json" with { type: "json" };

/** The version string printed by `--version` and recorded in each run. */
export const VERSION: string = meta.version;
