/**
 * The built-in tools the sandbox worker serves: every built-in but `search`,
 * which always runs in the main process over the system's retriever
 * (`tools/retrieval_host.ts`). Kept apart from `registry.ts` so the worker
 * does not load the retrievers, the stemmer and their schemas: a module graph
 * the worker loads is start-up time before a run's first question.
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

/** The worker's tools by name, in the order `ragbench tools` lists them. */
export const WORKER_TOOLS: ReadonlyMap<string, ToolDef> = new Map<string, ToolDef>(
  [calculator, listDocuments, readDocument, corpusGrep, lookupTable, dateCalc].map(
    (def) => [def.name, def as ToolDef],
  ),
);
