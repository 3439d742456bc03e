/**
 * Reads a run directory back for `ragbench report` and `ragbench compare`:
 * the result lines of `per_question_results.jsonl`, streamed (the file is
 * never held as one string), each checked against the one result-line schema
 * (`lib/run/result_line.ts`). Each line, as it passes, is added to the HTML
 * report's catalogue of per-question data (where the line is; the data
 * itself is built on a second pass over the file while `report.html` is
 * written: `html/streamed_data.ts`) and kept as a compact
 * copy (`compact_line.ts`) of what the summaries and statistics read — texts,
 * tool outputs and arguments, tool data and model replies dropped, repeated
 * values shared — so memory follows the report's needs rather than the
 * file's size. `ragbench run` reads its own file back through
 * {@link readResultLines} at its end, so the two write the same files.
 *
 * Every setting the summaries depend on comes from what the run wrote about
 * itself, in this order: `run.json` (name, systems with their type, model,
 * offered and network tools, `evaluation.retrieval_k`, indexing costs), else
 * `config.resolved.yaml`, else the lines (systems in the order the lines name
 * them, with the model each line records). So `report` writes the files `run`
 * wrote.
 *
 * A last line without its newline (a write cut off by a crash) is ignored;
 * a line seen twice for the same system, question and repeat keeps the later
 * one (and is counted).
 *
 * @module
 */

import { join } from "../util/paths.ts";
import { RagbenchError } from "../errors.ts";
import type { QuestionResult } from "../types.ts";
import { LineCompactor } from "./compact_line.ts";
import { describeFsError } from "../util/fs.ts";
import { yamlLibrary } from "../util/yaml_library.ts";
import { eachTextLine } from "../util/text_lines.ts";
import { type EmbeddedSource, LineEmbedder, type ReportLine } from "./html/question_data.ts";
import { StreamedEmbedder } from "./html/streamed_data.ts";
import { MANIFEST_FILE, parseManifest, type RunManifest } from "../run/manifest.ts";
import { readResultLine } from "../run/result_line.ts";
import type { IndexingRecord } from "../retrieval/registry.ts";
import type { ReportSystem } from "./run_report.ts";
import { retrievalHeadline } from "./retrieval_headline.ts";
import { gapsNote } from "../run/shard_set.ts";
import { type Summaries, summarize } from "./outputs.ts";

/** What a run directory holds, read back. */
export interface RunContents {
  systems: ReportSystem[];
  /** Offered tool names by system (empty when the resolved config is missing). */
  tools: Map<string, string[]>;
  lines: QuestionResult[];
  /**
   * The report's per-question data: held from the one pass (`embed: "held"`), or read from the
   * results file again when the page is written (`"streamed"`).
   */
  embedded: EmbeddedSource;
  /** Lines replaced by a later line for the same system, question and repeat. */
  duplicates: number;
  /** Run name (from the resolved config, else the folder name). */
  name: string;
  /** What embedding the passages cost, every session (empty without a readable run.json). */
  indexing: IndexingRecord[];
  /** The run's `evaluation.retrieval_k`; null when neither run.json nor the resolved config says. */
  retrievalK: number[] | null;
  /** The run's `run.json`; null when it is missing or unreadable (see `notes`). */
  manifest: RunManifest | null;
  /** What could not be read about the run, for the reader to see (one sentence each). */
  notes: string[];
  /** Warnings the report shows about the run as a whole (a partial merge's gaps). */
  warnings: string[];
}

/** How {@link readRun} gets the report's per-question data. */
export interface ReadRunOptions {
  /**
   * `"held"`: built as the lines are read and held (~250 B a line at a million lines: well
   * under the file's size), so the page costs no second parse — `ragbench report`, whose target
   * is time against one parse pass. `"streamed"` (default): read from the file again while the
   * page is written, so nothing is held — for readers that may never write the page (compare) or
   * hold much else (merge).
   */
  embed?: "held" | "streamed";
}

/**
 * Reads the run in `dir`.
 *
 * @throws {RagbenchError} when the results file is missing or a line is not JSON.
 */
export async function readRun(dir: string, options: ReadRunOptions = {}): Promise<RunContents> {
  const notes: string[] = [];
  const manifest = await readManifest(dir, notes);
  const resolved = manifest ? null : await readResolvedConfig(dir);
  const described = manifest
    ? manifest.systems.map((s) => ({
      name: s.name,
      type: s.type,
      // run.json files written before systems recorded their model: the run's model.
      model: s.model === undefined ? manifest.model_id : s.model,
      tools: s.tools,
      networkTools: s.network_tools ?? [],
    }))
    : (resolved?.systems ?? []).map((s) => ({
      name: s.name,
      type: s.type,
      model: s.model ?? resolved?.model ?? null,
      tools: s.offered_tools ?? [],
      networkTools: [] as string[],
    }));
  const retrievalK = retrievalKOf(manifest?.evaluation ?? resolved?.evaluation);
  const path = join(dir, "per_question_results.jsonl");
  const names = described.map((s) => s.name);
  const ndcg = { ndcg: retrievalHeadline(retrievalK ?? undefined).rank };
  const embedded = options.embed === "held"
    ? new LineEmbedder(names, ndcg)
    : new StreamedEmbedder(path, names, ndcg);
  const { lines, duplicates } = readResultLines(path, { embedded });
  const systems: ReportSystem[] = [];
  const tools = new Map<string, string[]>();
  for (const s of described) {
    systems.push({ name: s.name, type: s.type, model: s.model, networkTools: s.networkTools });
    tools.set(s.name, [...s.tools]);
  }
  const known = new Set(systems.map((s) => s.name));
  for (const line of lines) {
    if (known.has(line.system)) continue;
    known.add(line.system);
    systems.push({ name: line.system, type: "unknown", model: line.model, networkTools: [] });
    tools.set(line.system, []);
  }
  return {
    systems,
    tools,
    lines,
    embedded,
    duplicates,
    name: manifest?.name ?? resolved?.name ?? dir.replace(/\/+$/, "").split("/").pop() ?? dir,
    indexing: manifest?.sessions.flatMap((s) => s.indexing ?? []) ?? [],
    retrievalK,
    manifest,
    notes,
    warnings: manifest?.partial ? [gapsNote(manifest.partial)] : [],
  };
}

/** `dir`'s run.json; null (with a note saying why) when it is missing or not a manifest. */
async function readManifest(dir: string, notes: string[]): Promise<RunManifest | null> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    notes.push(
      `"${path}" cannot be read (${
        describeFsError(error)
      }): the run's settings are taken from config.resolved.yaml or the results`,
    );
    return null;
  }
  try {
    return parseManifest(text, path);
  } catch (error) {
    notes.push(
      `${
        error instanceof RagbenchError ? error.message : String(error)
      } The run's settings are taken from config.resolved.yaml or the results.`,
    );
    return null;
  }
}

/** `evaluation.retrieval_k` when it is a list of positive whole numbers; null otherwise. */
function retrievalKOf(evaluation: Record<string, unknown> | undefined): number[] | null {
  const k = evaluation?.retrieval_k;
  if (!Array.isArray(k) || k.length === 0) return null;
  return k.every((x) => Number.isSafeInteger(x) && x > 0) ? [...k] : null;
}

interface ResolvedConfig {
  name?: string;
  model?: string;
  evaluation?: Record<string, unknown>;
  systems: Array<{ name: string; type: string; offered_tools?: string[]; model?: string }>;
}

async function readResolvedConfig(dir: string): Promise<ResolvedConfig | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, "config.resolved.yaml"));
  } catch {
    return null;
  }
  try {
    const value = yamlLibrary().parse(text) as Record<string, unknown>;
    const systems = Array.isArray(value?.systems) ? value.systems : [];
    const model = value?.model as { id?: unknown } | undefined;
    return {
      ...(typeof value.name === "string" ? { name: value.name } : {}),
      ...(typeof model?.id === "string" ? { model: model.id } : {}),
      ...(value.evaluation && typeof value.evaluation === "object"
        ? { evaluation: value.evaluation as Record<string, unknown> }
        : {}),
      systems: systems.flatMap((s: Record<string, unknown>) => {
        if (typeof s?.name !== "string" || typeof s?.type !== "string") return [];
        const systemModel = (s.model as { id?: unknown } | undefined)?.id;
        return [{
          name: s.name,
          type: s.type,
          ...(Array.isArray(s.offered_tools)
            ? { offered_tools: s.offered_tools.filter((t): t is string => typeof t === "string") }
            : {}),
          ...(typeof systemModel === "string" ? { model: systemModel } : {}),
        }];
      }),
    };
  } catch {
    return null;
  }
}

/** Where {@link readResultLines} hands each kept line for the report's data ({@link LineEmbedder} or {@link StreamedEmbedder}). */
export interface EmbedSink {
  /** Adds the line read at `lineNumber`; returns its place. */
  add(line: ReportLine, lineNumber: number): number;
  /** Puts a later line for the same job in `index`'s place. */
  replace(index: number, line: ReportLine, lineNumber: number): void;
  /** Told of the file as the pass opens it. */
  begin?(info: Deno.FileInfo): void;
}

/** What {@link readResultLines} keeps. */
export interface ReadLinesOptions {
  /**
   * Told where each kept line is, before it is made compact (the report's data, built from
   * the file again when the page is written).
   */
  embedded?: EmbedSink;
  /** Keeps only the lines this accepts (the others are still checked); default: every line. */
  keep?: (line: QuestionResult) => boolean;
  /** Keep each line's ranking and scores (for the TREC run files); default false. */
  ranking?: boolean;
}

/**
 * The result lines of the results file at `path`, streamed and checked, each
 * kept as a compact copy (`compact_line.ts`); a line seen twice for the same
 * system, question and repeat keeps the later one (and is counted). No line's
 * text or parse tree outlives its turn.
 *
 * @throws {RagbenchError} ("io") when the file cannot be read, ("data") naming
 *   the first line that is not a result line.
 */
export function readResultLines(
  path: string,
  options: ReadLinesOptions = {},
): { lines: QuestionResult[]; duplicates: number } {
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    throw new RagbenchError(
      "io",
      `Cannot read "${path}": ${describeFsError(error)}. Is this a ragbench run directory?`,
      { cause: error },
    );
  }
  const compactor = new LineCompactor({ ranking: options.ranking ?? false });
  // Where each job's line is, keyed by a number: strings of a million keys would cost more.
  const byKey = new Map<number | string, number>();
  const ids = new Map<string, number>();
  const idOf = (text: string) => {
    let id = ids.get(text);
    if (id === undefined) ids.set(text, id = ids.size);
    return id;
  };
  const lines: QuestionResult[] = [];
  let duplicates = 0;
  const { embedded, keep } = options;
  const take = (text: string, lineNumber: number) => {
    const value = readResultLine(text, path, lineNumber);
    if (value === null || (keep !== undefined && !keep(value))) return;
    const s = idOf(value.system), q = idOf(value.question_id);
    // A number while it is exact and distinct (ids under 2^22, repeats under 128: past any
    // run's), else a string.
    const key = s < 2 ** 22 && q < 2 ** 22 && value.repeat < 128
      ? (s * 2 ** 22 + q) * 128 + value.repeat
      : `${value.repeat}\u0000${value.question_id}\u0000${value.system}`;
    const earlier = byKey.get(key);
    if (earlier === undefined) {
      byKey.set(key, lines.length);
      embedded?.add(value, lineNumber);
      lines.push(compactor.compact(value));
    } else {
      embedded?.replace(earlier, value, lineNumber);
      lines[earlier] = compactor.compact(value);
      duplicates++;
    }
  };
  try {
    embedded?.begin?.(file.statSync());
    eachTextLine(file, take);
  } catch (error) {
    if (error instanceof RagbenchError) throw error;
    throw new RagbenchError("io", `Cannot read "${path}": ${describeFsError(error)}.`, {
      cause: error,
    });
  } finally {
    file.close();
  }
  return { lines, duplicates };
}

/** The summaries of a run read back: what `run` wrote, from its lines and run.json. */
export function summarizeRun(run: RunContents): Summaries {
  return summarize(
    run.systems.map((s) => ({
      name: s.name,
      type: s.type,
      model: s.model,
      tools: run.tools.get(s.name) ?? [],
      networkTools: s.networkTools,
    })),
    run.lines,
    run.retrievalK ? { retrievalK: run.retrievalK } : {},
  );
}
