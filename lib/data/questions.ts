/**
 * Loads a question set: YAML (a list, or a mapping with a `questions:` list),
 * JSONL (one question per line), or a BEIR folder's queries and qrels split
 * (see `beir.ts`). Every problem is reported with its line:
 * schema errors, duplicate ids, invalid `iregex` patterns, `requires_tools`
 * and `tool_used` names that no tool has, and evidence ids the corpus lacks.
 *
 * @module
 */

import { extname } from "../util/paths.ts";
import { ConfigError, IssueList } from "../errors.ts";
import { validateIregex } from "../regex/iregex.ts";
import { suggestion } from "../util/did_you_mean.ts";
import { readTextFile } from "../util/fs.ts";
import { restoreProtoKeys, shieldProtoKeys } from "../util/proto_keys.ts";
import { type LoadReporter, type ProgressSink, slowLoadReporter } from "../util/load_progress.ts";
import { fixedSource, issuesFromZod, parseYaml, type YamlSource } from "../util/yaml_source.ts";
import { type Question, questionSchema } from "./question_schema.ts";
import { DOCUMENT_EXTENSIONS } from "./formats/document_file.ts";

/** Where questions come from: a YAML/JSONL file, or a BEIR folder and split. */
export type QuestionSource = string | { beir: string; split: string };

/** The path a source reads (the file, or the BEIR folder). */
export function questionSourcePath(source: QuestionSource): string {
  return typeof source === "string" ? source : source.beir;
}

/** Names a question set is checked against. */
export interface QuestionContext {
  /** Receives notes that do not stop the run (e.g. BEIR queries left out). */
  onWarning?: (message: string) => void;
  /** Every tool name a question may require (built-ins and the config's custom tools). */
  toolNames: readonly string[];
  /** Document ids of the corpus; evidence must name one of them. */
  documentIds?: ReadonlySet<string>;
  /** Progress lines for loads that take over a second (see load_progress.ts). */
  progress?: ProgressSink;
}

/** Questions validated between two progress checks. */
const PROGRESS_EVERY = 5000;

/**
 * Reads and validates the questions at `path`.
 *
 * @throws {ConfigError} listing every problem with its line.
 */
export async function loadQuestions(path: string, context: QuestionContext): Promise<Question[]> {
  const reporter = slowLoadReporter(context.progress);
  const text = await readTextFile(path, "questions");
  const questions = await parseQuestions(text, path, context, reporter);
  reporter.done(`questions: loaded ${questions.length} from "${path}"`);
  return questions;
}

/**
 * Reads several question sets and concatenates them in order. A question id
 * used in two sets is an error.
 *
 * @throws {ConfigError} listing every problem with its file and line.
 */
export async function loadQuestionSets(
  sources: readonly QuestionSource[],
  context: QuestionContext,
): Promise<Question[]> {
  const all: Question[] = [];
  const owner = new Map<string, string>();
  for (const source of sources) {
    const path = questionSourcePath(source);
    const set = typeof source === "string"
      ? await loadQuestions(source, context)
      : await loadBeirSet(source, context);
    for (const q of set) {
      const other = owner.get(q.id);
      if (other !== undefined) {
        throw new ConfigError("questions", [{
          position: { file: path },
          message:
            `question id "${q.id}" is also used in "${other}"; ids must be unique across the question sets of a config`,
        }]);
      }
      owner.set(q.id, path);
      all.push(q);
    }
  }
  return all;
}

async function loadBeirSet(
  source: { beir: string; split: string },
  context: QuestionContext,
): Promise<Question[]> {
  const loaded = await (await import("./beir.ts")).loadBeirQuestions(
    source.beir,
    source.split,
    context,
  );
  const where = `questions "${source.beir}" (split ${source.split})`;
  if (loaded.unjudged > 0) {
    context.onWarning?.(
      `${where}: ${
        loaded.unjudged === 1 ? "1 query has" : `${loaded.unjudged} queries have`
      } no qrels line in the split and ${loaded.unjudged === 1 ? "is" : "are"} left out`,
    );
  }
  if (loaded.noRelevant > 0) {
    context.onWarning?.(
      `${where}: ${loaded.noRelevant} judged queries have no relevant document; their retrieval metrics stay empty`,
    );
  }
  return loaded.questions;
}

/** Validates question-set text (YAML, or JSONL when `file` ends in .jsonl). */
export async function parseQuestions(
  text: string,
  file: string,
  context: QuestionContext,
  reporter: LoadReporter = slowLoadReporter(context.progress),
): Promise<Question[]> {
  reporter.step(`questions: parsing "${file}" (${millions(text.length)} characters)`);
  const entries: Array<{ source: YamlSource; path: Array<string | number>; value: unknown }> = [];
  const issues = new IssueList("questions");
  if (extname(file).toLowerCase() === ".jsonl") {
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        entries.push({
          source: fixedSource(file, undefined, i + 1),
          path: [],
          value: JSON.parse(line),
        });
      } catch (error) {
        issues.addAt(file, i + 1, `invalid JSON (${(error as Error).message})`);
      }
    });
  } else {
    const parsed = parseYaml(text, file);
    if (parsed.issues.length) throw new ConfigError("questions", parsed.issues);
    const root = parsed.source.value;
    const list = Array.isArray(root)
      ? { items: root, path: [] as Array<string | number> }
      : root && typeof root === "object" &&
          Array.isArray((root as Record<string, unknown>).questions)
      ? { items: (root as { questions: unknown[] }).questions, path: ["questions"] }
      : undefined;
    if (!list) {
      throw new ConfigError("questions", [{
        position: { file, line: 1 },
        message: "expected a list of questions (or a mapping with a questions: list)",
      }]);
    }
    list.items.forEach((value, i) => {
      entries.push({ source: parsed.source, path: [...list.path, i], value });
    });
  }
  const questions: Question[] = [];
  const ids = new Map<string, number>();
  let documentList: string[] | undefined;
  // Compiling a pattern in RE2 takes 0.1-0.3 ms: each distinct one is checked once.
  const patternProblems = new Map<string, string | null>();
  for (const [n, entry] of entries.entries()) {
    if (n % PROGRESS_EVERY === 0) {
      reporter.step(`questions: checking "${file}": ${n} of ${entries.length}`);
    }
    const parsed = questionSchema.safeParse(shieldProtoKeys(entry.value));
    if (!parsed.success) {
      const found = issuesFromZod(
        entry.source,
        parsed.error,
        questionSchema,
        entry.path,
        entry.value,
      );
      for (const issue of found) issues.add(issue);
      continue;
    }
    const q = restoreProtoKeys(parsed.data);
    const at = (sub: Array<string | number>) => entry.source.positionOf([...entry.path, ...sub]);
    const previous = ids.get(q.id);
    if (previous !== undefined) {
      issues.add(() => ({
        position: at(["id"]),
        message: `question id "${q.id}" is used twice (questions ${previous + 1} and ${
          questions.length + 1
        })`,
      }));
    }
    ids.set(q.id, questions.length);
    (q.requires_tools ?? []).forEach((tool, i) => {
      if (!context.toolNames.includes(tool)) {
        issues.add(() => ({
          position: at(["requires_tools", i]),
          message: `question "${q.id}" requires unknown tool "${tool}"`,
          hint: suggestion(tool, context.toolNames),
        }));
      }
    });
    for (const [i, check] of q.checks.entries()) {
      if ((check.type === "exact_match" || check.type === "token_f1") && !check.answers) {
        if (q.answers && q.answers.length > 0) check.answers = q.answers;
        else {
          issues.add(() => ({
            position: at(["checks", i]),
            message:
              `${check.type} in question "${q.id}" has no gold answers; give the question "answers:" or the check "answers:"`,
          }));
        }
      }
      let invalid: string | null = null;
      if (check.type === "iregex") {
        const known = patternProblems.get(check.pattern);
        invalid = known !== undefined ? known : await validateIregex(check.pattern);
        patternProblems.set(check.pattern, invalid);
      }
      if (invalid !== null) {
        issues.add(() => ({
          position: at(["checks", i, "pattern"]),
          message: `invalid iregex pattern: ${invalid}`,
        }));
      }
      if (check.type === "tool_used" && !context.toolNames.includes(check.tool)) {
        issues.add(() => ({
          position: at(["checks", i, "tool"]),
          message: `tool_used names unknown tool "${check.tool}"`,
          hint: suggestion(check.tool, context.toolNames),
        }));
      }
    }
    const seenEvidence = new Set<string>();
    (q.evidence ?? []).forEach(({ id }, i) => {
      if (seenEvidence.has(id)) {
        issues.add(() => ({
          position: at(["evidence", i]),
          message: `evidence lists document "${id}" twice in question "${q.id}"`,
        }));
      }
      seenEvidence.add(id);
    });
    if (context.documentIds) {
      const docs = context.documentIds;
      (q.evidence ?? []).forEach(({ id }, i) => {
        if (!docs.has(id)) {
          issues.add(() => ({
            position: at(["evidence", i]),
            message: `evidence names document "${id}", which the corpus does not have`,
            hint: withoutExtensionHint(id, docs) ?? suggestion(id, documentList ??= [...docs]),
          }));
        }
      });
    }
    questions.push(q);
  }
  issues.throwIfAny();
  if (questions.length === 0) {
    throw new ConfigError("questions", [{
      position: { file },
      message: "the file holds no questions",
    }]);
  }
  return questions;
}

/**
 * The hint for an evidence id written as a file name (`guide/setup.md`, or
 * `./guide/setup.pdf`) when the corpus has the document it names: a folder
 * document's id is its path without the extension.
 */
function withoutExtensionHint(id: string, docs: ReadonlySet<string>): string | undefined {
  let bare = id.startsWith("./") ? id.slice(2) : id;
  const dot = bare.lastIndexOf(".");
  if (dot > 0 && DOCUMENT_EXTENSIONS.has(bare.slice(dot).toLowerCase())) bare = bare.slice(0, dot);
  if (bare === id || !docs.has(bare)) return undefined;
  return `did you mean "${bare}"? A document's id is its path in the corpus folder without the file extension`;
}

function millions(count: number): string {
  return `${(count / 1e6).toFixed(1)} million`;
}
