/**
 * What a run's dollar figures mean, in sentences printed under the console
 * table, in `summary.md` and in `report.html`: that `--mock` dollars are
 * simulated (the mock's estimated tokens at each model's price; nothing was
 * spent), and which systems' cost is unknown because a model or embedding
 * model they use has no known price (their cost cells are empty, `?` in the
 * console), or because a deployed pipeline reports no cost. Worked out from the systems' model ids and summaries alone, so
 * `ragbench report` on any run directory says the same as `run` did.
 *
 * @module
 */

/** What the notes need of a system. */
export interface CostNoteRow {
  system: string;
  /** Model id, e.g. `openai:gpt-4o` or `mock:gpt-4o`; null when unknown. */
  model: string | null;
  questions: number;
  cost_per_question: number | null;
}

/** The notes, in order (none when every dollar figure is a real, known cost). */
export function costNotes(rows: readonly CostNoteRow[]): string[] {
  const notes: string[] = [];
  if (rows.some((r) => r.model?.startsWith("mock:"))) {
    notes.push(
      "Dollar figures are simulated (--mock): the mock's estimated tokens at each model's " +
        "price; nothing was spent.",
    );
  }
  const unknown = rows.filter((r) => r.questions > 0 && r.cost_per_question === null);
  if (unknown.length > 0) {
    notes.push(
      `Cost unknown for ${
        unknown.map((r) => r.model ? `${r.system} (${r.model})` : r.system).join(", ")
      }: each uses a model or embedding model with no known price, or is a deployed pipeline ` +
        "(type http or command) whose replies report no cost, so the cost cells are " +
        'empty ("?" in the console), never $0. Give the price in the config (a model\'s price: ' +
        "{input_per_mtok, output_per_mtok}; an embedding's price_per_mtok; a pipeline's " +
        "response.cost_usd path); ragbench validate names each model.",
    );
  }
  return notes;
}
