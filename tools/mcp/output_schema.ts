/**
 * Checks an MCP tool's `structuredContent` against the tool's own
 * `outputSchema` — both written by the server, so both hostile — in bounded
 * time on the main thread. The MCP SDK's checker (Ajv) compiles every listed
 * tool's schema when the tools are listed and matches `pattern` with the
 * backtracking `RegExp`: a server declaring `"pattern": "^(a+)+$"` could hang
 * ragbench beyond any timeout or Ctrl-C, and 100,000 listed tools took a
 * minute to compile. Here nothing is compiled ahead: {@link compileOutputSchema}
 * only wraps the schema, and a check walks schema and value together:
 *
 * - `pattern` and `patternProperties` run on RE2 (lib/regex/re2.ts),
 *   linear in the text. A pattern RE2 cannot run (look-around,
 *   back-references) or that does not fit its memory is not checked.
 * - Every schema applied to a value is a step; a check past
 *   {@link MAX_CHECK_STEPS} steps, past {@link MAX_CHECK_DEPTH} levels, or
 *   whose regex work (text length × the pattern's automaton size) passes
 *   {@link MAX_REGEX_WORK} gives up, and so does one still running at its
 *   deadline: `too_costly`, never a hang. Equality (`const`, `enum`,
 *   `uniqueItems`) compares canonical JSON, whose length is counted too.
 * - Keywords: `type`, `enum`, `const`, the number, string, array and object
 *   keywords of JSON Schema 2020-12 and draft-07 (`items` as a list,
 *   `additionalItems`, `dependencies`, boolean `exclusiveMinimum`), `allOf`,
 *   `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, and `$ref` to a JSON pointer
 *   or `$anchor` in the same schema. Not checked: `format` (an annotation in
 *   2020-12), `unevaluated*`, `$dynamicRef`, references to other documents,
 *   and unknown keywords.
 *
 * The bounds: `schema_budget.ts`; the walk over schema and value:
 * `schema_walk.ts`.
 *
 * @module
 */

import { loadEngine } from "../../lib/regex/re2_instance.ts";
import { Budget, GiveUp, type Pattern } from "./schema_budget.ts";
import { SchemaWalk } from "./schema_walk.ts";

export {
  COMPILE_WORK,
  MAX_CHECK_DEPTH,
  MAX_CHECK_STEPS,
  MAX_MATCH_WORK,
  MAX_REGEX_WORK,
} from "./schema_budget.ts";

/** What a check found. */
export type OutputCheckResult =
  | { ok: true }
  | { ok: false; reason: "mismatch"; message: string }
  | { ok: false; reason: "too_costly" | "timeout"; message: string };

/** A tool's output schema, ready to check values. */
export interface OutputCheck {
  /**
   * Checks `value`, giving up at `deadline` (a `performance.now()` time).
   * Loads the regex engine first when the schema has patterns. Never rejects.
   */
  check(value: unknown, deadline: number): Promise<OutputCheckResult>;
}

/** Wraps `schema` (nothing is compiled until a value is checked). */
export function compileOutputSchema(schema: unknown): OutputCheck {
  const patterns = new Map<string, Pattern | null>();
  const refs = new Map<string, unknown>();
  let needsEngine: boolean | undefined;
  return {
    async check(value, deadline) {
      try {
        // The engine (and Node compatibility under it) only for a schema that has patterns.
        needsEngine ??= /"pattern(Properties)?":/.test(JSON.stringify(schema) ?? "");
        if (needsEngine) await loadEngine();
        const walk = new SchemaWalk(schema, refs, new Budget(patterns, deadline));
        const problem = walk.check(schema, value, "", 0);
        return problem === null
          ? { ok: true }
          : { ok: false, reason: "mismatch", message: problem };
      } catch (error) {
        if (error instanceof GiveUp) {
          return { ok: false, reason: error.reason, message: error.message };
        }
        throw error;
      }
    },
  };
}
