/**
 * Helpers for the framework systems' tests: a config over the rag arena with
 * agent_search beside every framework, the processes a test may leave
 * behind, and a result line's steps without what timing changes.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { QuestionResult, Step } from "../../lib/types.ts";
import { ROOT } from "./cli.ts";
import { commandLines, killAll, otherModulesProcesses } from "./processes.ts";

/** Every framework system type. */
export const FRAMEWORK_TYPES = [
  "ai_sdk",
  "langgraph",
  "openai_agents",
  "mastra",
  "llamaindex",
] as const;

/**
 * A config over the rag arena: agent_search and each of `types` (default all),
 * each system entry with `keys` added (e.g. `max_steps: 2`).
 */
export function frameworksConfig(
  options: { keys?: string; model?: string; evaluation?: string; types?: readonly string[] } = {},
): string {
  const keys = options.keys ? `, ${options.keys}` : "";
  const types = options.types ?? FRAMEWORK_TYPES;
  return `name: frameworks_test
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
mock_script: ${ROOT}arenas/rag/mock.yaml
model: ${options.model ?? "{name: gpt-4o-mini}"}
evaluation: ${options.evaluation ?? "{concurrency: 4}"}
systems:
  - {type: agent_search, name: agent_search${keys}}
${types.map((t) => `  - {type: ${t}, name: ${t}${keys}}`).join("\n")}
`;
}

/**
 * Pids and command lines of the framework processes of this checkout still running (not those
 * another test module running in this process at the same time started).
 */
export function frameworkProcesses(): string[] {
  const others = otherModulesProcesses();
  return commandLines()
    .filter(({ pid }) => !others.has(pid))
    .filter(({ args }) => args.includes(" run ") && args.includes(`${ROOT}systems/frameworks/`))
    .map(({ pid, args }) => `${pid} ${args}`);
}

/** Waits (bounded: 5 s) until no framework process of this checkout is left, else kills them and fails. */
export async function assertNoFrameworkProcess(): Promise<void> {
  let left: string[] = [];
  for (let i = 0; i < 50; i++) {
    left = frameworkProcesses();
    if (left.length === 0) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  killAll(left.map((line) => Number(line.split(" ")[0])));
  assert.fail(`framework processes left running:\n${left.join("\n")}`);
}

/** A step without its timings (and retries: which system a retried request hit is chance). */
export function comparableStep(step: Step): unknown {
  const copy = structuredClone(step) as unknown as Record<string, unknown>;
  delete copy.latency_ms;
  delete copy.retries;
  delete copy.http_statuses;
  delete copy.backoff_ms;
  delete copy.restored;
  if (copy.type === "tool") delete (copy.result as Record<string, unknown>).latency_ms;
  return copy;
}

/** A result line without timings: what two runs must agree on. */
export function comparableLine(line: QuestionResult): unknown {
  const copy = structuredClone(line) as unknown as Record<string, unknown>;
  delete copy.latency_ms;
  copy.steps = line.steps.map(comparableStep);
  return copy;
}
