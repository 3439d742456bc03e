import assert from "node:assert/strict";
import { retrieverSchema } from "../../lib/config/retriever_schema.ts";
import { GROUNDED_INSTRUCTIONS, PASSAGES_HEADER } from "../../lib/llm/grounded_prompt.ts";
import type { ChatRequest } from "../../lib/llm/model.ts";
import { REACT_FINAL_FORMAT, REACT_FINAL_PROMPT } from "../../lib/llm/react_json.ts";
import { effectivePrompts } from "../../lib/prompts/prompt_set.ts";
import { RunRetrievers } from "../../lib/retrieval/registry.ts";
import { TraceRecorder } from "../../lib/trace/trace_recorder.ts";
import { FINAL_ANSWER_PROMPT } from "../../systems/agent_loop.ts";
import { AGENT_SEARCH_PROMPT } from "../../systems/agent_search.ts";
import { CODE_PROGRAM_RULES } from "../../systems/code_program.ts";
import { SYSTEMS } from "../../systems/registry.ts";
import { modelCallsOf, type SystemDef } from "../../systems/system.ts";
import { fakeSearch, modelOf, question, toolboxOf } from "../support/fixtures.ts";
import { corpusOf } from "../support/tool_context.ts";

const signal = new AbortController().signal;
const QUESTION = "How tall is the Eiffel Tower?";

/** Runs one question of system type `type` with `entry` and a model replying `reply`; returns its requests. */
async function requestsOf(
  type: string,
  entry: Record<string, unknown>,
  reply: string,
): Promise<ChatRequest[]> {
  const def = SYSTEMS.get(type) as SystemDef;
  const requests: ChatRequest[] = [];
  const model = modelOf((r) => {
    requests.push(structuredClone(r));
    return { content: reply };
  });
  const recorder = new TraceRecorder(model);
  const session = toolboxOf([fakeSearch]).session("q1");
  const corpus = corpusOf([{ id: "eiffel", text: "The Eiffel Tower is 330 metres tall." }]);
  const retriever = "retriever" in def.options.shape
    ? await new RunRetrievers(corpus).get(
      { key: "k", name: "r", config: retrieverSchema.parse({ top_k: 1 }) },
      signal,
    )
    : null;
  try {
    await def.run(def.options.parse({ type, ...entry }), {
      question: question("q1", QUESTION),
      recorder,
      tools: session,
      retriever,
      signal,
    });
  } finally {
    session.close();
  }
  return requests;
}

const systemOf = (r: ChatRequest) => r.messages.find((m) => m.role === "system")?.content ?? "";
const lastUser = (r: ChatRequest) => r.messages.findLast((m) => m.role === "user")?.content ?? "";

Deno.test("closed_book and rag send their configured system prompt, {{question}} filled in; rag's passages follow it", async () => {
  const [closed] = await requestsOf(
    "closed_book",
    { prompts: { system: "Answer «{{question}}» in one word." } },
    "330",
  );
  assert.equal(systemOf(closed), `Answer «${QUESTION}» in one word.`);
  const [grounded] = await requestsOf("rag", { prompts: { system: "Quote the passage." } }, "330");
  assert.ok(
    systemOf(grounded).startsWith(`Quote the passage.\n\n${PASSAGES_HEADER}\n\n[1] doc_id: eiffel`),
    systemOf(grounded),
  );
  // Without prompts: the defaults, as before.
  const [plain] = await requestsOf("rag", {}, "330");
  assert.ok(systemOf(plain).startsWith(`${GROUNDED_INSTRUCTIONS}\n\n${PASSAGES_HEADER}`));
});

Deno.test("agents send their configured system and final-answer prompts, placeholders filled in", async () => {
  const prompts = {
    system: "Tools: {{tools}}. Turns: {{max_steps}}.",
    final_answer: "Enough: answer «{{question}}».",
  };
  // max_steps 1: the only call is the final one, so both prompts are in it.
  const [native] = await requestsOf("agent_search", { prompts, max_steps: 1 }, "330");
  assert.equal(systemOf(native), "Tools: search. Turns: 1.");
  assert.equal(lastUser(native), `Enough: answer «${QUESTION}».`);
  const [grep] = await requestsOf("grep_agent", { prompts, max_steps: 1 }, "330");
  // {{tools}} names the tools of the session it is given (the plan gives grep_agent its own).
  assert.equal(systemOf(grep), "Tools: search. Turns: 1.");
  assert.equal(lastUser(grep), `Enough: answer «${QUESTION}».`);
  // react_json: the instructions open the protocol's prompt; the final message keeps its format.
  const [react] = await requestsOf(
    "agent_search",
    { prompts, max_steps: 1, agent_mode: "react_json" },
    '{"answer": "330"}',
  );
  assert.ok(systemOf(react).startsWith("Tools: search. Turns: 1.\n\n## How to reply"));
  assert.equal(lastUser(react), `Enough: answer «${QUESTION}».\n\n${REACT_FINAL_FORMAT}`);
  // Without prompts: the defaults of each mode.
  const [plain] = await requestsOf("agent_search", { max_steps: 1 }, "330");
  assert.equal(systemOf(plain), AGENT_SEARCH_PROMPT);
  assert.equal(lastUser(plain), FINAL_ANSWER_PROMPT);
  const [plainReact] = await requestsOf(
    "agent_search",
    { max_steps: 1, agent_mode: "react_json" },
    '{"answer": "330"}',
  );
  assert.equal(lastUser(plainReact), REACT_FINAL_PROMPT);
});

Deno.test("code_agent sends its configured prompts; the program rules follow the instructions", async () => {
  const [final] = await requestsOf(
    "code_agent",
    {
      prompts: { system: "Be quick with {{tools}}.", final_answer: "Last program now." },
      max_steps: 1,
    },
    '```js\nfinal_answer("330");\n```',
  );
  assert.ok(systemOf(final).startsWith(`Be quick with search.\n\n${CODE_PROGRAM_RULES}`));
  assert.equal(lastUser(final), "Last program now.");
});

Deno.test("every system type that calls a model declares its prompts; the hashed list follows the config", () => {
  for (const [type, def] of SYSTEMS) {
    // retrieval_only and the deployed pipelines (http, command) send ragbench's model nothing.
    if (modelCallsOf(def, {}).max === 0) {
      assert.equal(def.prompts, undefined, type);
      continue;
    }
    assert.ok(def.prompts?.slots.has("system"), `${type} declares a system prompt`);
    const defaults = effectivePrompts(def.prompts!, {});
    const changed = effectivePrompts(def.prompts!, { prompts: { system: "Other words." } });
    assert.equal(changed[0], "Other words.");
    assert.deepEqual(changed.slice(1), defaults.slice(1));
  }
});
