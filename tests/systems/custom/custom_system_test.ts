import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../../lib/types.ts";
import { execCli, ROOT, runCli } from "../../support/cli.ts";
import { tempTree } from "../../support/temp.ts";
import { processesWith } from "../../support/processes.ts";
import { waitUntil } from "../../support/wait.ts";

const PROBES = `${ROOT}tests/fixtures/systems/probe_systems.ts`;

const QUESTIONS = `- id: q1
  question: What is the elevation of Mount Everest in metres?
  checks: [{type: contains, value: "8"}]
`;

/** Runs one custom system (export `name` of the probe module) on one question with --mock. */
async function runProbe(
  name: string,
  extra = "",
): Promise<{ code: number; stderr: string; line: QuestionResult | null }> {
  await using t = await tempTree({
    "q.yaml": QUESTIONS,
    "c.yaml": `name: t
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
evaluation: {question_timeout_s: 3}
systems:
  - type: custom
    name: probe
    path: "${PROBES}#${name}"
${extra}`,
  });
  const out = join(t.dir, "run");
  const result = await runCli(["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"]);
  let line: QuestionResult | null = null;
  try {
    line = (await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[])[0];
  } catch { /* no run folder */ }
  return { code: result.code, stderr: result.stderr, line };
}

Deno.test("custom system: the model, a tool and the retriever are ragbench's, each call a traced step", async () => {
  const { line, stderr } = await runProbe("everything", "    tools: [calculator]\n");
  assert.ok(line, stderr);
  assert.equal(line.error, null);
  assert.deepEqual(line.steps.map((s) => s.type), ["retrieval", "tool", "model"]);
  assert.match(line.answer!, /calculator says 5 \/ first mount_everest$/);
  assert.deepEqual(line.cited, ["mount_everest"]);
  assert.equal(line.retrieval.ranking[0], "mount_everest");
});

Deno.test("custom system: a plain exported function answers", async () => {
  const { line } = await runProbe("plain");
  assert.equal(line?.answer, "You asked: What is the elevation of Mount Everest in metres?");
  assert.equal(line?.error, null);
});

Deno.test("custom system that throws: the question's error says what it threw", async () => {
  const { line, code, stderr } = await runProbe("throws");
  // The run goes on and ends; a system whose every question errored fails it (exit 1).
  assert.equal(code, 1);
  assert.match(stderr, /every question of probe errored/);
  assert.deepEqual(line?.error, {
    kind: "system",
    message: 'custom system "probe" failed: Error: the index is not built',
  });
});

Deno.test("custom system that hangs: the question timeout stops it and kills its process", async () => {
  const { line } = await runProbe("hangs");
  assert.equal(line?.error?.kind, "timeout");
  assert.match(line!.error!.message, /longer than 3 s \(evaluation\.question_timeout_s\)/);
  // Killed with SIGKILL, it is gone as soon as the kernel has run the kill (a moment, on a
  // loaded machine).
  await waitUntil(() => processesWith("__system-host", "probe_systems.ts").length === 0);
  assert.deepEqual(processesWith("__system-host", "probe_systems.ts"), []);
});

Deno.test("custom system that returns garbage: the error says what it returned and what to return", async () => {
  const number = await runProbe("returnsNumber");
  assert.equal(
    number.line?.error?.message,
    'custom system "probe" failed: Error: it returned number 42; return the answer\'s text, or {answer, cited}',
  );
  const keys = await runProbe("returnsWrongKeys");
  assert.equal(
    keys.line?.error?.message,
    'custom system "probe" failed: Error: it returned an object with the key "text"; return {answer, cited} (cited optional)',
  );
});

Deno.test("custom system that reads outside its permissions: refused, and told how to declare it", async () => {
  const { line } = await runProbe("readsOutside");
  assert.equal(line?.error?.kind, "system");
  assert.match(
    line!.error!.message,
    /^custom system "probe" failed: NotCapable: Requires read access to "\/etc\/hostname".* \(a custom system may do only what its side_effects allow, "none" here: filesystem reads and writes the working folder, network reaches the network\)$/,
  );
});

Deno.test("custom system that cites ids not in the corpus: the question fails naming them", async () => {
  const { line } = await runProbe("citesUnknown");
  assert.deepEqual(line?.error, {
    kind: "system",
    message:
      'the answer cites 2 documents not in the corpus: "atlantis", "el_dorado" (cite the doc_id of a passage the retriever or a tool returned)',
  });
});

Deno.test("custom system: an unknown tool is an error result the system reads; the model-call limit is refused", async () => {
  const tool = await runProbe("callsUnknownTool", "    tools: [calculator]\n");
  assert.match(tool.line!.answer!, /^tool error: unknown_tool: /);
  const capped = await runProbe("exceedsModelCalls", "    max_model_calls: 1\n");
  assert.equal(
    capped.line?.answer,
    "stopped: The model-call limit (1) for this question is reached",
  );
  assert.equal(capped.line?.flags.budget_exhausted, true);
});

Deno.test("custom system that cannot be loaded stops the run before any question (exit 2)", async () => {
  const missing = await runProbe("answr");
  assert.equal(missing.code, 2);
  assert.match(
    missing.stderr,
    /Cannot load custom system "probe" from ".*probe_systems\.ts#answr": it has no export named "answr" \(it exports: .*everything.*\)\./,
  );
  const value = await runProbe("notASystem");
  assert.match(
    value.stderr,
    /: export "notASystem" is not a system: export a function \(question, ctx\) or defineSystem\(\{run\}\)\./,
  );
});

Deno.test("a custom system's process gets no permission of ragbench's: a run needs only --allow-run for deno", async () => {
  await using t = await tempTree({ "q.yaml": QUESTIONS });
  Deno.writeTextFileSync(
    t.path("c.yaml"),
    `name: t
corpus: ${ROOT}arenas/rag/corpus.json
questions: q.yaml
systems:
  - {type: custom, name: probe, path: "${PROBES}#readsOutside"}
`,
  );
  const out = join(t.dir, "run");
  // ragbench itself may read everything; the system still may not.
  const result = await execCli(
    ["--allow-read", `--allow-write=${t.dir}`, `--allow-run=${Deno.execPath()}`],
    ["run", t.path("c.yaml"), "--mock", "--out", out, "--quiet"],
  );
  assert.equal(result.code, 1, result.stderr);
  const [line] = await readJsonl(join(out, "per_question_results.jsonl")) as QuestionResult[];
  assert.match(line.error!.message, /NotCapable: Requires read access to "\/etc\/hostname"/);
});
