/**
 * A loopback rerank service for tests: `POST /v1/rerank` with
 * `{model, query, documents}` answered in the shape of a chosen provider,
 * each document scored by the number of query words it contains (so tests
 * know the order to expect). `mode` makes it misbehave.
 *
 * @module
 */

import { json, type Loopback, loopback } from "./loopback_server.ts";

/** The reply shape of each provider. */
export type RerankFlavour = "cohere" | "jina" | "voyage" | "tei";

/** How the server misbehaves (default: it does not). */
export type RerankMode = "ok" | "fewer" | "repeated" | "nan" | "500";

/** Word-overlap score of `document` for `query` (what the server answers). */
export function overlapScore(query: string, document: string): number {
  const words = new Set(document.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  return (query.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => words.has(w)).length;
}

/** Starts the service. */
export function rerankServer(flavour: RerankFlavour, mode: { value: RerankMode }): Loopback {
  return loopback((req) => {
    if (req.path !== "/v1/rerank") return json({ message: "not found" }, 404);
    if (mode.value === "500") return json({ message: "overloaded" }, 500);
    const body = JSON.parse(req.body) as { query: string; documents: string[] };
    let items = body.documents.map((d, index) => ({
      index,
      score: overlapScore(body.query, d) / 10,
    }));
    // Providers sort by relevance.
    items.sort((a, b) => b.score - a.score || a.index - b.index);
    if (mode.value === "fewer") items = items.slice(0, Math.max(1, items.length - 2));
    if (mode.value === "repeated") items[items.length - 1].index = items[0].index;
    const scored = items.map((i) => ({
      index: i.index,
      relevance_score: mode.value === "nan" ? "NaN" : i.score,
    }));
    const tokens = Math.ceil((body.query.length + body.documents.join("").length) / 4);
    switch (flavour) {
      case "cohere":
        return json({ id: "r1", results: scored, meta: { billed_units: { search_units: 1 } } });
      case "jina":
        return json({ model: "jina-reranker", results: scored, usage: { total_tokens: tokens } });
      case "voyage":
        return json({ object: "list", data: scored, usage: { total_tokens: tokens } });
      case "tei":
        return json(items.map((i) => ({ index: i.index, score: i.score })));
    }
  });
}
