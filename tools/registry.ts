/**
 * Every built-in tool, looked up by name with `Map.get` (never `obj[name]`:
 * a model can name a tool `constructor`). Adding a built-in is one file in
 * `tools/` and one line here.
 *
 * @module
 */

import { calculator } from "./calculator.ts";
import { corpusGrep } from "./corpus_grep.ts";
import { dateCalc } from "./date_calc.ts";
import type { ToolDef } from "./define_tool.ts";
import { listDocuments } from "./list_documents.ts";
import { lookupTable } from "./lookup_table.ts";
import { readDocument } from "./read_document.ts";
import { search } from "./search.ts";

/** Built-in tools by name, in the order `ragbench tools` lists them. */
export const BUILTIN_TOOLS: ReadonlyMap<string, ToolDef> = new Map<string, ToolDef>(
  [calculator, listDocuments, readDocument, corpusGrep, lookupTable, dateCalc, search].map(
    (def) => [def.name, def as ToolDef],
  ),
);
