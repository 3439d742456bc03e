/**
 * The config `ragbench init` writes: the user's document folder as the
 * corpus, the starter questions, the model (OpenAI's gpt-4o-mini unless
 * the command line names another model or endpoint), and four systems that
 * show what retrieval buys on these documents: the model alone, retrieve
 * then read over BM25 and over hybrid retrieval, and the search agent.
 *
 * The hybrid retriever uses the offline hashing embedder, so a live run
 * needs only a chat endpoint; a comment shows how to use an embedding
 * endpoint instead. No mock script: under `--mock` every system answers by
 * the mock's default policy, so a first mock run measures retrieval on the
 * user's documents (see mock_note.ts).
 *
 * @module
 */

/** What the starter config says about the run. */
export interface StarterConfigOptions {
  /** The run's name (a valid config name). */
  name: string;
  /** The document folder, relative to the config's folder, `/`-separated. */
  corpus: string;
  /** The model's name. */
  model: string;
  /** The endpoint, null for OpenAI's. */
  baseUrl: string | null;
  /** The variable holding the API key, null when the endpoint takes none. */
  apiKeyEnv: string | null;
}

/** The config file's text. */
export function starterConfig(options: StarterConfigOptions): string {
  const yaml = (value: string | null) => value === null ? "null" : JSON.stringify(value);
  return `# A starter benchmark for the documents in ${options.corpus}, written by \`ragbench init\`.
# It compares four ways to answer the questions in questions.yaml:
#   closed_book   the model alone: what it knows without your documents
#   rag_bm25      retrieve 5 passages with BM25 (keywords), then answer from them
#   rag_hybrid    the same over hybrid retrieval (BM25 fused with vectors)
#   agent_search  an agent that decides when and what to search, and how often
#
#   ragbench run ragbench.yaml --mock   offline, no API key: ranks the retrievers on your documents
#   ragbench run ragbench.yaml          live: every system asks the model below
name: ${options.name}
# Your documents: .md, .markdown, .rst, .txt, .html, .htm and .pdf files (and .csv/.json tables).
# on_error: skip leaves out the files that cannot be read (empty, not UTF-8, a broken PDF) and
# lists them when the run starts; on_error: stop makes any of them an error.
corpus: {path: ${yaml(options.corpus)}, on_error: skip}
questions: questions.yaml
model:
  # Any OpenAI-compatible chat endpoint: base_url null is OpenAI; for Ollama, vLLM, LiteLLM,
  # llama.cpp or a hosted provider give its URL (e.g. http://127.0.0.1:11434/v1) and its
  # model name.
  name: ${yaml(options.model)}
  base_url: ${yaml(options.baseUrl)}
  # The environment variable holding the API key (its value is never written anywhere);
  # null when the endpoint takes no key.
  api_key_env: ${yaml(options.apiKeyEnv)}
evaluation:
  # Retrieval is scored at these cut-offs (nDCG@5, recall@5, ...): the systems read 5 passages.
  retrieval_k: [1, 5]
  # To stop a live run before it spends more than $1 (this needs the model's price):
  # max_cost_usd: 1
retrievers:
  bm25: {kind: bm25, top_k: 5}
  # Hybrid retrieval with the offline hashing embedder (a lexical stand-in for an embedding
  # model). For real vectors, give an embedding endpoint instead, e.g.
  #   embedding: {provider: openai, model: text-embedding-3-small, api_key_env: OPENAI_API_KEY}
  hybrid: {kind: hybrid, top_k: 5, embedding: {provider: hashing}}
systems:
  - {type: closed_book, name: closed_book}
  - {type: rag, name: rag_bm25, retriever: bm25}
  - {type: rag, name: rag_hybrid, retriever: hybrid}
  - {type: agent_search, name: agent_search}
`;
}
