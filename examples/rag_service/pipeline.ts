/**
 * A small RAG pipeline to benchmark as a deployed system: keyword retrieval
 * over the rag arena's corpus, then an "answer" made of the best passage's
 * first sentence that holds a number (a stand-in for a model call). The same
 * pipeline is served over HTTP by `service.ts` and run as a command by
 * `command.ts`; `deployed.yaml` benchmarks both.
 *
 * @module
 */

/** One document of the corpus. */
export interface Doc {
  id: string;
  title: string;
  text: string;
}

/** What the pipeline returns for one question (the JSON the config's response paths read). */
export interface PipelineReply {
  answer: string;
  contexts: { doc_id: string; text: string; score: number }[];
  usage: { prompt_tokens: number; completion_tokens: number };
  cost: number;
}

/** Reads the corpus (a JSON list of documents). */
export async function loadDocs(path: string | URL): Promise<Doc[]> {
  return JSON.parse(await Deno.readTextFile(path)) as Doc[];
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** Answers `question` from `docs`: the `topK` documents sharing the most words, best first. */
export function answer(docs: readonly Doc[], question: string, topK = 3): PipelineReply {
  const asked = new Set(words(question).filter((w) => w.length > 3));
  const ranked = docs
    .map((d) => ({ d, score: words(`${d.title} ${d.text}`).filter((w) => asked.has(w)).length }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.d.id.localeCompare(b.d.id))
    .slice(0, topK);
  const best = ranked[0]?.d;
  const sentence = best?.text.split(/(?<=\.)\s+/).find((s) => /\d/.test(s));
  const text = sentence ? `${sentence} [${best!.id}]` : "I don't know.";
  const promptTokens = Math.ceil(ranked.reduce((n, r) => n + r.d.text.length, 0) / 4);
  const completionTokens = Math.ceil(text.length / 4);
  return {
    answer: text,
    contexts: ranked.map((r) => ({ doc_id: r.d.id, text: r.d.text, score: r.score })),
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens },
    // At $0.15 / $0.60 per million input / output tokens.
    cost: (promptTokens * 0.15 + completionTokens * 0.6) / 1e6,
  };
}
