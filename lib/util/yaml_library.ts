/**
 * The `yaml` library (npm:yaml), loaded on first use. It takes about 30 ms
 * to load, and a run that reads its files with js-yaml and writes its
 * resolved config with `plain_yaml.ts` never needs it: only an error's
 * position, an aliased document and an unusual config do.
 *
 * It is loaded synchronously (the package is CommonJS, so `require` can),
 * because the error paths that need it are synchronous. The module is the
 * same instance a static `import ... from "yaml"` gets.
 *
 * @module
 */

import { fileURLToPath } from "./paths.ts";
import type * as Yaml from "yaml";
import { nodeProcess } from "./node_env.ts";

let loaded: typeof Yaml | undefined;

/** The `yaml` library's exports. */
export function yamlLibrary(): typeof Yaml {
  if (loaded === undefined) {
    const main = import.meta.resolve("yaml");
    // Reached through `process` rather than imported: importing node:module costs ~12 ms at
    // start-up (Deno's CommonJS loader), which only this path needs.
    const { createRequire } = nodeProcess().getBuiltinModule("node:module");
    loaded = createRequire(main)(fileURLToPath(main)) as typeof Yaml;
  }
  return loaded;
}

/** Whether {@link yamlLibrary} has loaded the library (for tests of the lazy seam). */
export function yamlLibraryLoaded(): boolean {
  return loaded !== undefined;
}
