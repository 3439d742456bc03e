/**
 * `ragbench validate CONFIG`: loads the config and every file it names, and
 * reports every problem with its line — without starting a model, a tool or
 * a server.
 *
 * @module
 */

import { describeSkipped } from "../data/corpus.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import type { CliIO } from "./io.ts";
import { loadRun } from "../plan/setup.ts";
import type { RunPrices } from "../llm/pricing.ts";
import type { Config } from "../config/types.ts";
import {
  checkCostCaps,
  manifestPrices,
  priceRun,
  priceWarnings,
  unpricedOf,
} from "../plan/price_checks.ts";
import { RagbenchError } from "../errors.ts";
import { callsModel, SYSTEMS } from "../../systems/registry.ts";
import { promptIsSet, promptText } from "../prompts/prompt_set.ts";
import { dirname, relativePath } from "../util/paths.ts";
import { plural } from "../util/plural.ts";

/** Declaration of `ragbench validate`. */
export const VALIDATE_SPEC: CommandSpec = {
  name: "validate",
  summary: "Check CONFIG and the corpus, questions and mock script it names; start nothing.",
  positionals: [{ name: "CONFIG" }],
  options: [],
};

/** Runs the command; returns the exit code (errors are thrown). */
export async function validateCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const loaded = await loadRun(args.positionals[0], { mock: true }, {
    progress: io.progress,
    signal: io.signal,
  });
  const { config, corpus, questions } = loaded;
  const tools = new Set(config.systems.flatMap((s) => s.tools.map((t) => t.name)));
  const retrievers = new Map<string, { label: string; users: string[] }>();
  for (const s of config.systems) {
    if (!s.retriever) continue;
    const label = `${s.retriever.name} (${s.retriever.config.kind})`;
    const entry = retrievers.get(s.retriever.key) ?? { label, users: [] };
    entry.users.push(s.name);
    retrievers.set(s.retriever.key, entry);
  }
  const retrieverLine = [...retrievers.values()].map((r) => `${r.label}: ${r.users.join(", ")}`)
    .join("; ");
  // Priced as a live run would be (embedding endpoints included).
  const prices = await priceRun(config, { mock: false });
  const unpriced = unpricedOf(config, prices, { mock: false });
  io.out(
    [
      `${args.positionals[0]}: OK`,
      `  systems:   ${config.systems.map((s) => `${s.name} (${s.type})`).join(", ")}`,
      ...(retrieverLine ? [`  retrievers: ${retrieverLine}`] : []),
      `  tools:     ${tools.size ? [...tools].join(", ") : "none beyond each system's own"}`,
      ...promptLines(config),
      `  models:    ${modelsSummary(config.systems)}`,
      `  prices:    ${pricesSummary(config, prices)}`,
      `  corpus:    ${plural(corpus.documents.length, "document")}, ${
        plural(corpus.tables.length, "table")
      }`,
      `  questions: ${questions.length}`,
      `  mock:      ${
        config.mock_script.length
          ? plural(new Set(loaded.script.entries.map((e) => e.fragment)).size, "scripted question")
          : "no script (default policy)"
      }`,
    ].join("\n"),
  );
  for (const warning of loaded.warnings) io.progress(`warning: ${warning}`);
  for (const warning of priceWarnings(unpriced, prices.catalog)) io.progress(`warning: ${warning}`);
  try {
    checkCostCaps(config, unpriced, { mock: false, replay: false });
  } catch (error) {
    if (!(error instanceof RagbenchError)) throw error;
    io.progress(
      "warning: a live `ragbench run` of this config will refuse to start (a --mock run will " +
        "not): its cost cap needs every price",
    );
  }
  for (const line of describeSkipped(loaded.skipped)) io.progress(line);
  return 0;
}

/** Each model's and embedding model's price per million tokens and where it comes from. */
function pricesSummary(config: Config, prices: RunPrices): string {
  const { models, embeddings } = manifestPrices(config, prices, { mock: false });
  const source = (p: { source: string; catalog_entry: string | null }) =>
    p.source === "catalog" ? `catalog ${p.catalog_entry}` : p.source;
  return [
    ...models.map((m) =>
      m.input_per_mtok === null
        ? `${m.model} unknown`
        : `${m.model} $${m.input_per_mtok} in / $${m.output_per_mtok} out (${source(m)})`
    ),
    ...embeddings.map((e) =>
      e.input_per_mtok === null
        ? `${e.model} (embedding) unknown`
        : `${e.model} (embedding) $${e.input_per_mtok} (${source(e)})`
    ),
  ].join("; ") + ` — per million tokens; catalog ${prices.catalog}`;
}

/** Each distinct model (name, and endpoint when not the default) with the systems that use it. */
function modelsSummary(
  systems: ReadonlyArray<
    {
      name: string;
      type: string;
      options: Record<string, unknown>;
      model: { name: string; base_url: string | null };
    }
  >,
): string {
  const users = new Map<string, string[]>();
  // A system that calls no model (retrieval_only) uses none.
  for (const s of systems.filter(callsModel)) {
    const label = s.model.base_url ? `${s.model.name} at ${s.model.base_url}` : s.model.name;
    users.set(label, [...(users.get(label) ?? []), s.name]);
  }
  if (users.size === 0) return "none (no system calls a model)";
  return [...users].map(([label, names]) => `${label} (${names.join(", ")})`).join("; ");
}

/**
 * One line a system that sends prompts (a file's path as the config gives it): `defaults (system, final_answer)`, or
 * each prompt the config sets (inline or its file, and its length) beside the
 * defaults it keeps.
 */
function promptLines(config: Config): string[] {
  const lines: string[] = [];
  for (const s of config.systems) {
    const set = SYSTEMS.get(s.type)?.prompts;
    if (set === undefined || !callsModel(s)) continue;
    const slots = [...set.slots.keys()];
    const own = slots.filter((slot) => promptIsSet(s.options, slot));
    const kept = slots.filter((slot) => !own.includes(slot));
    const parts = own.map((slot) => {
      const file = s.prompt_files?.[slot];
      const where = file === undefined
        ? "inline"
        : `from ${relativePath(dirname(config.file), file)}`;
      return `${slot} ${where} (${plural(promptText(set, s.options, slot).length, "character")})`;
    });
    if (kept.length) {
      parts.push(own.length ? `default ${kept.join(", ")}` : `defaults (${kept.join(", ")})`);
    }
    lines.push(`${lines.length ? "             " : "  prompts:   "}${s.name}: ${parts.join("; ")}`);
  }
  return lines;
}
