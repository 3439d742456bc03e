/**
 * The host of the `search` tool in a run: it runs in the main process, over
 * the system's retriever that the run built once (`lib/retrieval/registry.ts`),
 * rather than in the permission-less sandbox worker.
 *
 * Why not the worker: the worker would need its own copy of every index
 * (twice the memory, and a second build before the first search), and a
 * vector retriever cannot embed a query there (no network, no API key, no
 * embedding cache). The code that runs here is ours and bounded: argument
 * validation with the search tool's zod schema, one retriever call (BM25 is
 * linear in the postings it reads; a vector query waits on the network with
 * the call's signal), and the output formatting of `tools/search.ts`. The
 * other built-ins (grep, read, list, lookup, calculator, date) stay in the
 * worker.
 *
 * @module
 */

import type { Retriever } from "../lib/retrieval/types.ts";
import { createInProcessHost, type HostEnv, type ToolHost } from "./host.ts";
import { searchOver } from "./search.ts";

/**
 * A host that serves `search` over `retriever`. Arguments are validated,
 * timeouts abort the call's signal, and failures become error results, as
 * in every host; any other tool name gets an `unknown_tool` result.
 */
export function createRetrievalHost(retriever: Retriever, env: HostEnv): ToolHost {
  return createInProcessHost([searchOver(retriever)], env);
}
