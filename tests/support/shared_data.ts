/**
 * Where the shared, read-only data sets are: `../shared/` beside the
 * repository (as in CI's fresh clone), or `$RAGBENCH_SHARED_DIR`. They are
 * used from there, never copied into the repository.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The shared folder. */
export const SHARED_DIR = Deno.env.get("RAGBENCH_SHARED_DIR") ??
  fileURLToPath(new URL("../../../shared/", import.meta.url));

/** The Cranfield collection in BEIR format, with a trailing slash. */
export const CRANFIELD = join(SHARED_DIR, "datasets/cranfield") + "/";
