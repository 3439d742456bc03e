/**
 * `ragbench init [DOCS]`: writes a starter benchmark for a folder of the
 * user's documents — `ragbench.yaml` (init_config.ts) and `questions.yaml`
 * (init_questions.ts) in `--dir` (default: the current folder) — then
 * validates it and prints the commands to run next. It never overwrites a
 * file: when either file exists it stops before writing anything and says
 * what to do.
 *
 * @module
 */

import { loadCorpus } from "../data/corpus.ts";
import { RagbenchError, UsageError } from "../errors.ts";
import { missingNeeds, permissionFlags } from "../plan/permissions.ts";
import { initNeeds } from "../plan/init_needs.ts";
import { describeFsError } from "../util/fs.ts";
import { basename, dirname, join, relativePath, resolvePath, sep } from "../util/paths.ts";
import type { CommandSpec, ParsedArgs } from "./args.ts";
import { starterConfig } from "./init_config.ts";
import { starterQuestions } from "./init_questions.ts";
import type { CliIO } from "./io.ts";
import { commandLine, DEFAULT_INVOCATION } from "./invocation.ts";
import { commandNeeds } from "./command_needs.ts";
import { validateCommand } from "./validate_command.ts";
import { INIT_DEFAULT_DOCS } from "../plan/init_needs.ts";

/** The files `init` writes. */
export const INIT_FILES = { config: "ragbench.yaml", questions: "questions.yaml" } as const;
/** The documents folder when none is given. */
const DEFAULT_MODEL = "gpt-4o-mini";
const DEFAULT_KEY_ENV = "OPENAI_API_KEY";

/** Declaration of `ragbench init`. */
export const INIT_SPEC: CommandSpec = {
  name: "init",
  summary: "Write a starter benchmark (config and questions) for a folder of your documents.",
  positionals: [{ name: "DOCS", optional: true }],
  options: [
    {
      name: "dir",
      value: "DIR",
      description: `Write ${INIT_FILES.config} and ${INIT_FILES.questions} here ` +
        "(default: the current folder; made if missing).",
    },
    {
      name: "model",
      value: "NAME",
      description: `The model the systems use (default ${DEFAULT_MODEL}).`,
    },
    {
      name: "base-url",
      value: "URL",
      description: "Any OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 " +
        "(default: OpenAI's).",
    },
    {
      name: "api-key-env",
      value: "VAR",
      description: `The environment variable holding the API key (default ${DEFAULT_KEY_ENV}; ` +
        "none for an endpoint that takes no key).",
    },
  ],
  notes:
    `DOCS is the folder of your documents (default ./${INIT_DEFAULT_DOCS}): .md, .markdown, .rst,\n` +
    ".txt, .html, .htm and .pdf files. The questions file holds one example of each check type,\n" +
    "made from sentences of your documents; replace them with your own questions.",
};

/** Runs the command; returns the exit code (errors are thrown). */
export async function initCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const docs = args.positionals[0] ?? INIT_DEFAULT_DOCS;
  const dir = args.options.get("dir") ?? ".";
  const model = modelOptions(args);
  const paths = {
    config: join(dir, INIT_FILES.config),
    questions: join(dir, INIT_FILES.questions),
  };
  const missing = missingNeeds(initNeeds(docs, dir));
  if (missing.length > 0) {
    throw new RagbenchError(
      "permission",
      `ragbench init was not granted what it needs: ${
        permissionFlags(missing, Deno.cwd()).join(" ")
      } (${missing.map((n) => n.why).join("; ")}).`,
    );
  }
  checkDocs(docs, args.positionals.length === 0);
  for (const path of [paths.config, paths.questions]) refuseOverwrite(path, dir);
  const { corpus, skipped } = await loadCorpus({ path: docs, on_error: "skip" }, {
    progress: io.progress,
    pdf: { signal: io.signal },
  });
  const docsLabel = portable(relativePath(resolvePath(dir), resolvePath(docs))) || ".";
  const config = starterConfig({
    name: runName(docs),
    corpus: docsLabel,
    ...model,
  });
  const questions = starterQuestions(corpus, docsLabel);
  let written: string | null = null;
  try {
    Deno.mkdirSync(dir, { recursive: true });
    // createNew: a file that appeared since the check above is still not overwritten.
    Deno.writeTextFileSync(paths.config, config, { createNew: true });
    written = paths.config;
    Deno.writeTextFileSync(paths.questions, questions, { createNew: true });
  } catch (error) {
    // Never leave half a benchmark behind.
    if (written !== null) Deno.removeSync(written);
    if (error instanceof Deno.errors.AlreadyExists) {
      for (const path of [paths.config, paths.questions]) refuseOverwrite(path, dir);
    }
    throw new RagbenchError(
      "io",
      `Cannot write the benchmark into "${dir}": ${describeFsError(error)}.`,
      { cause: error },
    );
  }
  const examples = questions.split("\n").filter((l) => l.startsWith("- id: ")).length;
  io.out(
    `Wrote ${paths.config} and ${paths.questions}: ${examples} example questions from the ` +
      `${corpus.documents.length} documents of ${docs}` +
      (skipped.some((s) => s.reason === "unreadable")
        ? " (unreadable files left out, below)"
        : "") +
      ".\n",
  );
  await validateCommand({ positionals: [paths.config], options: new Map() }, io);
  io.out(nextSteps(paths, model, await nextCommands(paths.config, io)));
  return 0;
}

/** The model settings from the command line, checked as the config would check them. */
function modelOptions(args: ParsedArgs) {
  const name = args.options.get("model") ?? DEFAULT_MODEL;
  if (name.trim() === "") throw new UsageError("--model needs a model name.");
  const baseUrl = args.options.get("base-url") ?? null;
  if (baseUrl !== null && !/^https?:\/\/[^\s/]+/.test(baseUrl)) {
    throw new UsageError(
      `--base-url "${baseUrl}" is not an http(s) URL; give the endpoint's base, e.g. http://127.0.0.1:11434/v1.`,
    );
  }
  const keyEnv = args.options.get("api-key-env") ?? DEFAULT_KEY_ENV;
  if (keyEnv !== "none" && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyEnv)) {
    throw new UsageError(
      `--api-key-env "${keyEnv}" is not an environment variable name; give one such as MY_API_KEY, or none.`,
    );
  }
  return { model: name, baseUrl, apiKeyEnv: keyEnv === "none" ? null : keyEnv };
}

/** Stops with what to do when DOCS is not a folder. */
function checkDocs(docs: string, defaulted: boolean): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(docs);
  } catch (error) {
    const give = "Give the folder that holds your documents: ragbench init PATH/TO/DOCS.";
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(
        defaulted
          ? `ragbench init needs a folder of documents, and there is no "${docs}" here. ${give}`
          : `Cannot use "${docs}" as the documents folder: it does not exist. ${give}`,
      );
    }
    throw new RagbenchError(
      "data",
      `Cannot use "${docs}" as the documents folder: ${describeFsError(error)}.`,
      { cause: error },
    );
  }
  if (!info.isDirectory) {
    throw new UsageError(
      `Cannot use "${docs}" as the documents folder: it is a file, not a folder. Give the ` +
        `folder that holds your documents: ragbench init ${portable(dirname(docs))}`,
    );
  }
}

function refuseOverwrite(path: string, dir: string): void {
  let exists = false;
  try {
    Deno.lstatSync(path);
    exists = true;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new RagbenchError("io", `Cannot check "${path}": ${describeFsError(error)}.`, {
        cause: error,
      });
    }
  }
  if (!exists) return;
  throw new UsageError(
    `Cannot write "${path}": it exists, and ragbench init never overwrites a file. Run the ` +
      `benchmark that is there (ragbench run ${join(dir, INIT_FILES.config)} --mock), or write ` +
      `a new one into another folder with --dir NEW_FOLDER, or move ${INIT_FILES.config} and ` +
      `${INIT_FILES.questions} out of "${dir}" first.`,
  );
}

/** A run name from the documents folder's name (letters, digits, `_`, `.`, `-`). */
function runName(docs: string): string {
  const name = basename(resolvePath(docs)).replace(/[^A-Za-z0-9_.-]+/g, "-").replace(
    /^[^A-Za-z0-9]+/,
    "",
  );
  return name === "" ? "my-docs" : name.slice(0, 60);
}

function portable(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

/** The next steps' commands, started the way this ragbench was (so they work as printed). */
async function nextCommands(
  config: string,
  io: CliIO,
): Promise<{ mock: string; validate: string; live: string }> {
  const invocation = io.invocation ?? DEFAULT_INVOCATION;
  const line = async (words: string[]): Promise<string> => {
    if (invocation.kind !== "deno_run") return commandLine(invocation, words);
    const args = {
      positionals: [config],
      options: new Map(words.slice(2).map((w) => [w.slice(2), ""])),
    };
    return commandLine(invocation, words, {
      needs: await commandNeeds(words[0], args),
      unstable: true,
    });
  };
  return {
    mock: await line(["run", config, "--mock"]),
    validate: await line(["validate", config]),
    live: await line(["run", config]),
  };
}

function nextSteps(
  paths: { config: string; questions: string },
  model: { model: string; baseUrl: string | null; apiKeyEnv: string | null },
  commands: { mock: string; validate: string; live: string },
): string {
  const where = model.baseUrl === null ? "OpenAI" : model.baseUrl;
  const key = model.apiKeyEnv === null ? "no key" : `the key in ${model.apiKeyEnv}`;
  return [
    "",
    "Next:",
    "  1. A first look, offline and free (no model is asked; it ranks the retrievers on your",
    "     documents):",
    `       ${commands.mock}`,
    `  2. Replace the examples in ${paths.questions} with your own questions, and check them:`,
    `       ${commands.validate}`,
    `  3. A live run against any OpenAI-compatible endpoint (now: ${model.model} at ${where}, ${key};`,
    `     change model: in ${paths.config}, or run init again with --model, --base-url and`,
    "     --api-key-env into another --dir):",
    ...(model.apiKeyEnv === null ? [] : [`       export ${model.apiKeyEnv}=...`]),
    `       ${commands.live}`,
  ].join("\n");
}
