/**
 * The example pipeline (`pipeline.ts`) as an HTTP service: POST
 * `{"question": "..."}` to `/ask` and get `{answer, contexts, usage, cost}`.
 * It wants `Authorization: Bearer $RAG_SERVICE_TOKEN` when that variable
 * is set.
 *
 *     RAG_SERVICE_TOKEN=s3cret-token deno run --allow-net=127.0.0.1 --allow-read \
 *       --allow-env=RAG_SERVICE_TOKEN examples/rag_service/service.ts 8765
 *
 * @module
 */

import { answer, loadDocs } from "./pipeline.ts";

const docs = await loadDocs(new URL("../../arenas/rag/corpus.json", import.meta.url));
const token = Deno.env.get("RAG_SERVICE_TOKEN");
const port = Number(Deno.args[0] ?? 8765);

const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (request) => {
  if (request.method !== "POST" || new URL(request.url).pathname !== "/ask") {
    return new Response("not found", { status: 404 });
  }
  if (token && request.headers.get("authorization") !== `Bearer ${token}`) {
    return new Response("unauthorized", { status: 401 });
  }
  const body = await request.json() as { question?: unknown };
  if (typeof body.question !== "string") return new Response("no question", { status: 400 });
  return Response.json(answer(docs, body.question));
});
// deno-lint-ignore no-console -- the service tells its user where it listens
console.error(`listening on http://127.0.0.1:${server.addr.port}/ask`);
