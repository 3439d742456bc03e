/**
 * Turns what an engine or service returned (ids, scores, perhaps texts) into
 * ranked passages of the run, so the same metrics score it: an id must name
 * a document of the corpus (or, over an index ragbench loaded itself, one of
 * its passages). An id the corpus does not hold is an error naming it and
 * its rank, never a hit silently dropped: dropping it would score the
 * engine on a ranking it did not return.
 *
 * @module
 */

import type { Document } from "../../types.ts";
import type { Passage } from "../../lexical/passages.ts";
import type { RetrievalHit } from "../types.ts";
import { EngineError, type EngineSite } from "./remote_error.ts";

/** One result as an engine returned it. */
export interface ExternalHit {
  /** The document id (or the passage id, for an index of the run's passages). */
  id: string;
  /** The engine's passage id, when it has one apart from the document id. */
  passage_id?: string | null;
  score: number;
  /** The passage text the engine returned; null: the document's text is used. */
  text?: string | null;
}

/** Documents of the corpus by id (made once per retriever). */
export function documentsById(documents: readonly Document[]): Map<string, Document> {
  return new Map(documents.map((d) => [d.id, d]));
}

/** Passages of the run by id (made once per retriever). */
export function passagesById(passages: readonly Passage[]): Map<string, Passage> {
  return new Map(passages.map((p) => [p.id, p]));
}

/**
 * The hits of an engine that returns document ids: each becomes a passage
 * of its document (its id the engine's passage id, else the document id;
 * its text the engine's, else the document's).
 *
 * @throws {EngineError} for an id the corpus does not hold.
 */
export function documentHits(
  hits: readonly ExternalHit[],
  documents: ReadonlyMap<string, Document>,
  site: EngineSite,
): RetrievalHit[] {
  return hits.map((hit, rank) => {
    const doc = documents.get(hit.id);
    if (doc === undefined) throw unknownId(hit.id, rank, documents.size, "document", site);
    return {
      passage: {
        id: hit.passage_id ?? doc.id,
        doc_id: doc.id,
        index: 0,
        title: doc.title,
        text: hit.text ?? doc.text,
      },
      score: hit.score,
    };
  });
}

/**
 * The hits of an engine over the run's own passages (loaded by ragbench).
 *
 * @throws {EngineError} for an id that is not one of them.
 */
export function passageHits(
  hits: readonly ExternalHit[],
  passages: ReadonlyMap<string, Passage>,
  site: EngineSite,
): RetrievalHit[] {
  return hits.map((hit, rank) => {
    const passage = passages.get(hit.id);
    if (passage === undefined) throw unknownId(hit.id, rank, passages.size, "passage", site);
    return { passage, score: hit.score };
  });
}

function unknownId(
  id: string,
  rank: number,
  size: number,
  what: "document" | "passage",
  site: EngineSite,
): EngineError {
  const shown = id.length > 80 ? `${id.slice(0, 80)}...` : id;
  return new EngineError(
    site,
    `returned ${what} id ${JSON.stringify(shown)} (result ${rank + 1}), which is not ` +
      `one of the run's ${size} ${what}s. ` +
      (what === "document"
        ? "Its index must hold the same documents, with the same ids, as the config's corpus."
        : "The index was changed by something else; let ragbench load it again (drop it)."),
  );
}
