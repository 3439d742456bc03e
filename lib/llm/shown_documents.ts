/**
 * Which documents a text shows, read the way the scripted mock model reads
 * the context it was given: the document ids of the blocks, windows and lines
 * that ragbench's own retrieval outputs put in front of a model.
 *
 * - `[n] doc_id: ID | passage: ...` — a passage of a `search` result or of a
 *   `rag` prompt (`tools/search.ts`, `grounded_prompt.ts`);
 * - `Document "ID" (TITLE), characters ...` or `Document "ID" (TITLE) is
 *   empty` — a `read_document` window;
 * - `ID:LINE: text` — a matching line of `corpus_grep`.
 *
 * What the model was not shown is not in the text: a search or grep output
 * cut to `tools.max_output_chars` keeps whole results only
 * (`tools/output_cut.ts`), so a document counts here exactly when it counts
 * as retrieved in the scores. A listing of ids (`list_documents`) or an id
 * named in an error message shows no document's text and does not count.
 *
 * {@link documentsShown} uses nothing outside its own body (string
 * methods, no regular expression), because the mock code agent's programs
 * carry its source text and run it in the sandbox on the tools' outputs
 * (`systems/code_agent_mock.ts`). It is linear in the text.
 *
 * @module
 */

/** The document ids `text` shows, in order of first appearance, each once. */
export function documentsShown(text: string): string[] {
  const found = new Set<string>();
  const add = (id: string) => {
    if (id !== "") found.add(id);
  };
  for (const line of String(text).split("\n")) {
    if (line.startsWith("[")) {
      const head = line.indexOf("] doc_id: ");
      const bar = head > 1 ? line.indexOf(" | passage: ", head) : -1;
      if (bar > head && line.slice(1, head).split("").every((c) => c >= "0" && c <= "9")) {
        add(line.slice(head + 10, bar));
      }
      continue;
    }
    if (line.startsWith('Document "')) {
      const end = line.indexOf('" (', 10);
      if (end > 10) add(line.slice(10, end));
      continue;
    }
    // corpus_grep: the first ":" that starts ":digits: " ends the id.
    let colon = line.indexOf(":");
    while (colon > 0) {
      let at = colon + 1;
      while (at < line.length && line[at] >= "0" && line[at] <= "9") at++;
      if (at > colon + 1 && line.startsWith(": ", at)) {
        add(line.slice(0, colon));
        break;
      }
      colon = line.indexOf(":", colon + 1);
    }
  }
  return [...found];
}
