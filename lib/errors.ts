/**
 * User-facing errors. Only `main.ts` catches these at the top; library code
 * throws them and never exits. Programmer errors use built-in `TypeError` /
 * `RangeError` instead.
 *
 * @module
 */

/** Machine-readable category of a user-facing error; decides the exit code. */
export type ErrorCode = "usage" | "config" | "data" | "permission" | "model" | "io" | "budget";

/** Base class of every error a user can cause and fix. */
export class RagbenchError extends Error {
  /** Category, used for the exit code (usage/config/data/permission → 2). */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RagbenchError";
    this.code = code;
  }
}

/** A bad command line: unknown command or option, missing argument. */
export class UsageError extends RagbenchError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("usage", message, options);
    this.name = "UsageError";
  }
}

/** Where a problem stands in an input file (1-based line and column). */
export interface SourcePosition {
  file: string;
  line?: number;
  column?: number;
}

/** One problem found while loading a YAML/JSON input file. */
export interface ConfigIssue {
  position: SourcePosition;
  message: string;
  /** A suggested fix, e.g. the closest known name. */
  hint?: string;
  /** What kind of file it is, when not the error's own subject (see {@link combineConfigErrors}). */
  subject?: string;
}

/**
 * An input file (config, questions, mock script, corpus) that cannot be used.
 * Carries every problem found, each with file, line and column, so a user
 * can fix them all in one pass.
 */
export class ConfigError extends RagbenchError {
  /** What kind of file it is: "config", "questions", "mock script", "corpus". */
  readonly subject: string;
  readonly issues: ConfigIssue[];
  /**
   * The ids the file did hold despite its problems (a BEIR corpus: every
   * line with a readable `_id`), so that files naming them can still be
   * checked in the same pass. Undefined when the loader cannot say.
   */
  readonly readIds?: ReadonlySet<string>;

  constructor(
    subject: string,
    issues: ConfigIssue[],
    options?: { cause?: unknown; readIds?: ReadonlySet<string> },
  ) {
    super("config", issues.map((issue) => formatIssue(subject, issue)).join("\n"), options);
    this.name = "ConfigError";
    this.subject = subject;
    this.issues = issues;
    if (options?.readIds) this.readIds = options.readIds;
  }

  /** Position of the first issue (for callers that need just one). */
  get file(): string {
    return this.issues[0]?.position.file ?? "";
  }

  /** Line of the first issue, when known. */
  get line(): number | undefined {
    return this.issues[0]?.position.line;
  }

  /** Column of the first issue, when known. */
  get column(): number | undefined {
    return this.issues[0]?.position.column;
  }
}

/**
 * Problems listed in one error: a mistake repeated on every line of a large
 * file would otherwise print a line per line of it. The rest are counted.
 */
export const MAX_LISTED_ISSUES = 20;

/**
 * Problems found while checking one input, keeping the first
 * {@link MAX_LISTED_ISSUES} and counting the rest: a file with a mistake on
 * each of its million lines holds twenty issue objects, not a million. An
 * issue may be given as a function, called only when the issue is kept, for
 * details that cost (a did-you-mean over every document id).
 */
export class IssueList {
  readonly #subject: string;
  readonly #issues: ConfigIssue[] = [];
  #more = 0;

  /** `subject` is what the error says it could not load ("questions", "corpus"). */
  constructor(subject: string) {
    this.#subject = subject;
  }

  /** Problems added so far, listed or not. */
  get count(): number {
    return this.#issues.length + this.#more;
  }

  /** Whether the list is full: an issue added now is only counted. */
  get full(): boolean {
    return this.#issues.length >= MAX_LISTED_ISSUES;
  }

  add(issue: ConfigIssue | (() => ConfigIssue)): void {
    if (this.#issues.length >= MAX_LISTED_ISSUES) {
      this.#more++;
      return;
    }
    this.#issues.push(typeof issue === "function" ? issue() : issue);
  }

  /** {@link add} for an issue with a file, a line and a message only. */
  addAt(file: string, line: number | undefined, message: string): void {
    this.add(() => ({ position: { file, line }, message }));
  }

  /**
   * @throws {ConfigError} listing the problems (and one counting those not
   *   listed) when there is any.
   */
  throwIfAny(options?: { readIds?: ReadonlySet<string> }): void {
    if (this.#issues.length > 0) throw new ConfigError(this.#subject, this.listed(), options);
  }

  /** The issues kept, then (when some were only counted) one that counts the rest. */
  listed(): ConfigIssue[] {
    const issues = [...this.#issues];
    if (this.#more > 0) {
      issues.push({
        position: { file: issues[issues.length - 1].position.file },
        message: `${this.#more} more problems not listed`,
      });
    }
    return issues;
  }
}

/** `Cannot load config "all.yaml" (line 12): unknown tool "x" — did you mean "y"?` */
export function formatIssue(subject: string, issue: ConfigIssue): string {
  const { file, line, column } = issue.position;
  const where = line === undefined
    ? ""
    : ` (line ${line}${column === undefined ? "" : `, column ${column}`})`;
  const hint = issue.hint ? ` — ${issue.hint}` : "";
  return `Cannot load ${issue.subject ?? subject} "${file}"${where}: ${issue.message}${hint}`;
}

/**
 * One error listing the problems of several files (a corpus and the
 * questions that refer to it), each issue keeping its own subject.
 */
export function combineConfigErrors(errors: readonly ConfigError[]): ConfigError {
  if (errors.length === 1) return errors[0];
  const issues = errors.flatMap((e) =>
    e.issues.map((i) => ({ ...i, subject: i.subject ?? e.subject }))
  );
  return new ConfigError(errors[0].subject, issues, { cause: errors[0] });
}

/** Exit code for a user-facing error: 2 for what the user must fix before a run, else 1. */
export function exitCodeFor(error: RagbenchError): number {
  return error.code === "model" || error.code === "io" || error.code === "budget" ? 1 : 2;
}
