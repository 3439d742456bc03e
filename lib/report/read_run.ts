/**
 * Reads a run directory back for `ragbench report` and `ragbench compare`:
 * the result lines of `per_question_results.jsonl`, streamed (the file is
 * never held as one string). Each line, as it passes, is added to the HTML
 * report's per-question data (kept as JSON text) and then slimmed in place
 * to what the summaries and statistics read — texts, tool outputs and
 * arguments, tool data and model replies dropped — so memory follows the
 * report's needs rather than the file's size; and the systems of
 * `config.resolved.yaml` when it is there (type, offered tools, model), else
 * the systems in the order the lines name them.
 *
 * A last line without its newline (a write cut off by a crash) is ignored;
 * a line seen twice for the same system, question and repeat keeps the later
 * one (and is counted).
 *
 * @module
 */

import { join } from "../util/paths.ts";
import { parse as parseYaml } from "yaml";
import { RagbenchError } from "../errors.ts";
import type { QuestionResult, Step } from "../types.ts";
import { eachLine } from "../util/byte_lines.ts";
import { describeFsError } from "../util/fs.ts";
import { LineEmbedder } from "./html/question_data.ts";
import { MANIFEST_FILE, parseManifest } from "../run/manifest.ts";
import type { IndexingRecord } from "../retrieval/registry.ts";
import type { ReportSystem } from "./run_report.ts";

/** What a run directory holds, read back. */
export interface RunContents {
  systems: ReportSystem[];
  /** Offered tool names by system (empty when the resolved config is missing). */
  tools: Map<string, string[]>;
  lines: QuestionResult[];
  /** The report's per-question data, built from the full lines. */
  embedded: LineEmbedder;
  /** Lines replaced by a later line for the same system, question and repeat. */
  duplicates: number;
  /** Run name (from the resolved config, else the folder name). */
  name: string;
  /** What embedding the passages cost, every session (empty without a readable run.json). */
  indexing: IndexingRecord[];
}

/**
 * Reads the run in `dir`.
 *
 * @throws {RagbenchError} when the results file is missing or a line is not JSON.
 */
export async function readRun(dir: string): Promise<RunContents> {
  const resolved = await readResolvedConfig(dir);
  const embedded = new LineEmbedder((resolved?.systems ?? []).map((s) => s.name));
  const { lines, duplicates } = await readLines(join(dir, "per_question_results.jsonl"), embedded);
  const systems: ReportSystem[] = [];
  const tools = new Map<string, string[]>();
  for (const s of resolved?.systems ?? []) {
    systems.push({
      name: s.name,
      type: s.type,
      model: s.model ?? resolved?.model ?? null,
      networkTools: [],
    });
    tools.set(s.name, s.offered_tools ?? []);
  }
  const known = new Set(systems.map((s) => s.name));
  for (const line of lines) {
    if (known.has(line.system)) continue;
    known.add(line.system);
    systems.push({
      name: line.system,
      type: "unknown",
      // Each line names its system's model (older runs' lines do not).
      model: typeof line.model === "string" ? line.model : resolved?.model ?? null,
      networkTools: [],
    });
    tools.set(line.system, []);
  }
  return {
    systems,
    tools,
    lines,
    embedded,
    duplicates,
    name: resolved?.name ?? dir.replace(/\/+$/, "").split("/").pop() ?? dir,
    indexing: await readIndexing(dir),
  };
}

/** The indexing records of every session in `dir`'s run.json; none when it cannot be read. */
async function readIndexing(dir: string): Promise<IndexingRecord[]> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch {
    return [];
  }
  try {
    return parseManifest(text, path).sessions.flatMap((s) => s.indexing ?? []);
  } catch {
    return [];
  }
}

interface ResolvedConfig {
  name?: string;
  model?: string;
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
    const value = parseYaml(text) as Record<string, unknown>;
    const systems = Array.isArray(value?.systems) ? value.systems : [];
    const model = value?.model as { id?: unknown } | undefined;
    return {
      ...(typeof value.name === "string" ? { name: value.name } : {}),
      ...(typeof model?.id === "string" ? { model: model.id } : {}),
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

// deno-lint-ignore require-await
async function readLines(
  path: string,
  embedded: LineEmbedder,
): Promise<{ lines: QuestionResult[]; duplicates: number }> {
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
  const byKey = new Map<string, number>();
  const lines: QuestionResult[] = [];
  let duplicates = 0;
  const decoder = new TextDecoder();
  const take = (bytes: Uint8Array, _offset: number, lineNumber: number) => {
    const text = decoder.decode(bytes);
    if (text.trim() === "") return;
    let value: QuestionResult;
    try {
      value = JSON.parse(text);
    } catch {
      throw new RagbenchError("data", `"${path}" line ${lineNumber} is not valid JSON.`);
    }
    const missing = missingField(value);
    if (missing) {
      throw new RagbenchError(
        "data",
        `"${path}" line ${lineNumber} is not a ragbench result line (${missing}).`,
      );
    }
    const key = `${value.repeat}\u0000${value.question_id}\u0000${value.system}`;
    const earlier = byKey.get(key);
    if (earlier === undefined) {
      byKey.set(key, lines.length);
      embedded.add(value);
      lines.push(slimLine(value));
    } else {
      embedded.replace(earlier, value);
      lines[earlier] = slimLine(value);
      duplicates++;
    }
  };
  try {
    eachLine(file, take);
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

/** What a value lacks to be a result line, or null. */
function missingField(value: unknown): string | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "not an object";
  const v = value as Record<string, unknown>;
  for (const key of ["system", "question_id", "question"]) {
    if (typeof v[key] !== "string") return `no text "${key}"`;
  }
  if (typeof v.repeat !== "number") return 'no number "repeat"';
  if (!Array.isArray(v.steps) || !Array.isArray(v.checks)) return 'no "steps" or "checks" list';
  if (typeof v.flags !== "object" || v.flags === null) return 'no "flags"';
  return null;
}

const NO_CALLS: never[] = [];
const NO_ARGS = Object.freeze({});

/**
 * A compact copy of a result line with what neither the summaries nor the
 * statistics read left out: the question and answer texts, model replies,
 * tool arguments, outputs and data, retrieved passages and the merged
 * ranking. Kept: every scalar and score, checks, flags, usage, the numbers of
 * the retrieval and trajectory blocks, and each step's type, tool, error,
 * truncation, cost and latency. (A new object, so the parsed line — most of
 * the memory — can be collected.)
 */
export function slimLine(line: QuestionResult): QuestionResult {
  const steps: Step[] = line.steps.map((step): Step => {
    if (step.type === "tool") {
      return {
        type: "tool",
        tool: step.tool,
        call_id: "",
        args: NO_ARGS,
        result: {
          output: "",
          error: step.result.error,
          truncated: step.result.truncated,
          cost_usd: step.result.cost_usd,
          latency_ms: step.result.latency_ms,
        },
      };
    }
    if (step.type === "model") {
      return {
        type: "model",
        usage: step.usage,
        cost_usd: step.cost_usd,
        latency_ms: step.latency_ms,
        content: null,
        tool_calls: NO_CALLS,
        final: step.final,
      };
    }
    return { ...step, query: "", results: [] };
  });
  return {
    ...line,
    question: "",
    answer: line.answer === null ? null : "",
    retrieval: { ...line.retrieval, ranking: [] },
    steps,
  };
}
