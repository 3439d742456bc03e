/**
 * The example pipeline (`pipeline.ts`) as a command: reads one request
 * `{"question": "..."}` from stdin and writes the reply's JSON to stdout.
 *
 *     echo '{"question": "How tall is the Eiffel Tower?"}' | deno run --allow-read examples/rag_service/command.ts
 *
 * @module
 */

import { answer, loadDocs } from "./pipeline.ts";

const docs = await loadDocs(new URL("../../arenas/rag/corpus.json", import.meta.url));
const input = await new Response(Deno.stdin.readable).text();
const request = JSON.parse(input) as { question: string };
// deno-lint-ignore no-console -- the reply is what the command writes
console.log(JSON.stringify(answer(docs, request.question)));
