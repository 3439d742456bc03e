import assert from "node:assert/strict";
import { ConfigError } from "../../../lib/errors.ts";
import { groundedMessages, groundingPassages } from "../../../lib/llm/grounded_prompt.ts";
import { createMockModel, UNKNOWN_ANSWER } from "../../../lib/llm/mock_model.ts";
import { entryFor, type MockScript, withEvidence } from "../../../lib/llm/mock_script.ts";
import { parseMockScript } from "../../../lib/llm/mock_script_load.ts";
import type { ChatMessage, ChatRequest } from "../../../lib/llm/model.ts";
import { OBSERVATION_PREFIX, REACT_JSON_PROMPTS } from "../../../lib/llm/react_json.ts";
import { documentsShown } from "../../../lib/llm/shown_documents.ts";
import type { ToolDef } from "../../../tools/define_tool.ts";
import { corpusGrep } from "../../../tools/corpus_grep.ts";
import { invokeTool } from "../../../tools/invoke.ts";
import { listDocuments } from "../../../tools/list_documents.ts";
import { readDocument } from "../../../tools/read_document.ts";
import { search } from "../../../tools/search.ts";
import { toolMessageText } from "../../../tools/toolbox.ts";
import { contextFor, corpusOf } from "../../support/tool_context.ts";
import { mockCodeReply } from "../../../systems/code_agent_mock.ts";
import { MOCK_POLICIES } from "../../../systems/registry.ts";

const QUESTION = "How tall is the harbor crane?";
const corpus = corpusOf([
  { id: "decoy", text: "The harbor crane is painted blue. The harbor crane is old." },
  { id: "truth", text: "The crane stands 52 metres tall." },
  { id: "empty", text: "" },
]);

async function output(def: unknown, args: unknown): Promise<string> {
  const raw = await invokeTool(def as ToolDef, args, contextFor(corpus));
  return toolMessageText({ ...raw, truncated: false, latency_ms: 0 });
}

Deno.test("documentsShown reads the documents of ragbench's own retrieval outputs, and nothing else", async () => {
  const found = await output(search, { query: "harbor crane tall", top_k: 2 });
  assert.deepEqual(documentsShown(found), ["decoy", "truth"]);
  const prompt = groundedMessages(QUESTION, [{
    doc_id: "truth",
    passage_id: "truth#0",
    text: "x",
  }]);
  assert.deepEqual(documentsShown(prompt[0].content ?? ""), ["truth"]);
  assert.deepEqual(documentsShown(await output(readDocument, { doc_id: "truth" })), ["truth"]);
  assert.deepEqual(documentsShown(await output(readDocument, { doc_id: "empty" })), ["empty"]);
  assert.deepEqual(documentsShown(await output(corpusGrep, { pattern: "52 metres" })), ["truth"]);
  // A listing of ids, a miss's did-you-mean and a search that found nothing show no text.
  assert.deepEqual(documentsShown(await output(listDocuments, {})), []);
  assert.deepEqual(documentsShown(await output(readDocument, { doc_id: "truht" })), []);
  assert.deepEqual(documentsShown(await output(search, { query: "zeppelin" })), []);
  assert.deepEqual(documentsShown("Error (not_found): truth: 12: not a grep line?"), []);
});

Deno.test("documentsShown is linear on hostile text (long lines of colons and brackets)", () => {
  const hostile = `${"a:1".repeat(200_000)}\n${"[1".repeat(200_000)}\n${
    ":".repeat(400_000)
  }\nDocument "${"x".repeat(100_000)}`;
  const started = performance.now();
  assert.deepEqual(documentsShown(hostile), []);
  // Not a timing assertion: it must simply finish; the loop bounds are what keep it linear.
  assert.ok(performance.now() >= started);
});

const SCRIPT = `"harbor crane":
  - {call: search, args: {query: harbor crane height}}
  - {answer: "It is 52 metres tall [truth]."}
  - {recall: "About 50 metres."}
"crane remembered":
  - {call: search, args: {query: crane}}
  - {answer: "52 metres, as everyone knows.", from_memory: true}
`;

function script(): MockScript {
  return withEvidence(parseMockScript(SCRIPT, "mock.yaml"), [
    { question: QUESTION, evidence: [{ id: "truth" }] },
    { question: "How tall is the crane remembered?", evidence: [{ id: "truth" }] },
  ]);
}

const PRICING = { input_per_mtok: 0, output_per_mtok: 0 };
const signal = new AbortController().signal;
const searchSpec = { name: "search", description: "s", parameters: {} };

function afterSearch(question: string, result: string): ChatRequest {
  const call = { id: "call_1", name: "search", arguments: "{}" };
  return {
    messages: [
      { role: "system", content: "sys" },
      { role: "user", content: question },
      { role: "assistant", content: null, tool_calls: [call] },
      { role: "tool", tool_call_id: "call_1", content: result },
    ],
    tools: [searchSpec],
  };
}

Deno.test("the mock gives a scripted answer only after a tool output showed an evidence document", async () => {
  const model = createMockModel(script(), "m", PRICING, { policies: MOCK_POLICIES });
  const hit = await output(search, { query: "harbor crane tall", top_k: 2 });
  const answered = await model.chat(afterSearch(QUESTION, hit), signal);
  assert.equal(answered.content, "It is 52 metres tall [truth].");
  // The search showed only the decoy: the default policy's answer, from what it was shown.
  const miss = await output(search, { query: "harbor crane painted", top_k: 1 });
  assert.deepEqual(documentsShown(miss), ["decoy"]);
  const quoted = await model.chat(afterSearch(QUESTION, miss), signal);
  assert.equal(
    quoted.content,
    `From the documents: ${miss.replace(/\s+/g, " ").trim().slice(0, 300)}`,
  );
  // An evidence id named in an error message is no document shown.
  const error = await model.chat(
    afterSearch(QUESTION, 'Error (not_found): No document "trth" — did you mean "truth"?'),
    signal,
  );
  assert.match(error.content!, /^From the documents: Error \(not_found\)/);
});

Deno.test("an answer marked from_memory is given whatever was shown; recall is never held back", async () => {
  const model = createMockModel(script(), "m", PRICING, { policies: MOCK_POLICIES });
  const miss = await output(search, { query: "harbor crane painted", top_k: 1 });
  const remembered = await model.chat(
    afterSearch("How tall is the crane remembered?", miss),
    signal,
  );
  assert.equal(remembered.content, "52 metres, as everyone knows.");
  const closedBook = await model.chat({
    messages: [{ role: "system", content: "sys" }, { role: "user", content: QUESTION }],
    tools: [],
  }, signal);
  assert.equal(closedBook.content, "About 50 metres.");
});

Deno.test("the mock answers a rag prompt from the script only when its passages hold evidence", async () => {
  const model = createMockModel(script(), "m", PRICING, { policies: MOCK_POLICIES });
  const passage = (doc_id: string, text: string) => ({ doc_id, passage_id: `${doc_id}#0`, text });
  const hit = await model.chat({
    messages: groundedMessages(QUESTION, [passage("decoy", "blue"), passage("truth", "52 m")]),
    tools: [],
    protocol: "grounded",
  }, signal);
  assert.equal(hit.content, "It is 52 metres tall [truth].");
  const miss = await model.chat({
    messages: groundedMessages(QUESTION, [passage("decoy", "The harbor crane is blue.")]),
    tools: [],
    protocol: "grounded",
  }, signal);
  assert.equal(miss.content, "From the documents: The harbor crane is blue. [decoy]");
  const none = await model.chat(
    { messages: groundedMessages(QUESTION, []), tools: [], protocol: "grounded" },
    signal,
  );
  assert.equal(none.content, UNKNOWN_ANSWER);
});

Deno.test("a react_json agent is held to the same rule through its observations", async () => {
  const model = createMockModel(script(), "m", PRICING, { policies: MOCK_POLICIES });
  const prompt = REACT_JSON_PROMPTS[0].replace("{tools}", "search");
  const react = (result: string): ChatRequest => ({
    messages: [
      { role: "system", content: `${prompt}\nTool names: search` },
      { role: "user", content: QUESTION },
      {
        role: "assistant",
        content: '{"tool": "search", "args": {"query": "harbor crane height"}}',
      },
      { role: "user", content: `${OBSERVATION_PREFIX}${result}` },
    ] as ChatMessage[],
    tools: [],
    protocol: "react_json",
  });
  const hit = await output(search, { query: "harbor crane tall", top_k: 2 });
  const miss = await output(search, { query: "harbor crane painted", top_k: 1 });
  const answered = await model.chat(react(hit), signal);
  assert.deepEqual(JSON.parse(answered.content!), { answer: "It is 52 metres tall [truth]." });
  const quoted = await model.chat(react(miss), signal);
  assert.match(JSON.parse(quoted.content!).answer, /^From the documents: \[1\] doc_id: decoy/);
});

Deno.test("the mock code agent's program tests the outputs it gets before it answers", async () => {
  const entry = entryFor(script(), QUESTION)!;
  const reply = mockCodeReply(entry, {
    question: QUESTION,
    turn: 0,
    offered: new Set(["search"]),
    evidence: ["truth"],
  });
  const program = reply.replace(/^```js\n/, "").replace(/\n```$/, "");
  // Run the program as the sandbox would: tool functions return the outputs the model reads.
  const run = async (searchOutput: string) => {
    let answer: string | undefined;
    const body = new Function(
      "search",
      "final_answer",
      `return (async () => {\n${program}\n})();`,
    );
    await body(() => Promise.resolve(searchOutput), (text: string) => (answer = text));
    return answer;
  };
  const hit = await output(search, { query: "harbor crane tall", top_k: 2 });
  const miss = await output(search, { query: "harbor crane painted", top_k: 1 });
  assert.equal(await run(hit), "It is 52 metres tall [truth].");
  assert.equal(
    await run(miss),
    `From the documents: ${miss.replace(/\s+/g, " ").trim().slice(0, 300)}`,
  );
  // Without evidence to look for, the program is the plain one: calls, then the answer.
  const plain = mockCodeReply(entry, { question: QUESTION, turn: 0, offered: new Set(["search"]) });
  assert.equal(
    plain,
    '```js\nawait search({"query":"harbor crane height"});\nfinal_answer("It is 52 metres tall [truth].");\n```',
  );
});

Deno.test("from_memory is checked: a boolean on an answer turn, a misspelling gets a did-you-mean", () => {
  const error = (text: string) => {
    try {
      parseMockScript(text, "m.yaml");
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      return e.message;
    }
    return "";
  };
  assert.match(
    error('"q":\n  - {answer: a, from_memory: "yes"}\n'),
    /^Cannot load mock script "m\.yaml" \(line 2, column 30\): q\[0\]\.from_memory: must be a boolean$/,
  );
  assert.match(
    error('"q":\n  - {answer: a, from_memry: true}\n'),
    /unknown key "from_memry" in q\[0\] — did you mean "from_memory"\?/,
  );
  assert.match(error('"q":\n  - {recall: a, from_memory: true}\n'), /unknown key "from_memory"/);
  assert.equal(
    parseMockScript('"q":\n  - {answer: a, from_memory: true}\n', "m").entries[0].fromMemory,
    true,
  );
});

Deno.test("a grounded prompt keeps passage lines and pages, and reads back the same passages", () => {
  const passages = [
    { doc_id: "guide", passage_id: "guide#0", text: "```sh\nmake install\n```\n\n| a | b |" },
    { doc_id: "manual", passage_id: "manual#3", page: 2, text: "Tide table\nHigh at 06:10." },
  ];
  const messages = groundedMessages("When?", passages);
  assert.ok(
    (messages[0].content ?? "").endsWith(
      "[1] doc_id: guide | passage: guide#0\n```sh\nmake install\n```\n\n| a | b |\n\n" +
        "[2] doc_id: manual | passage: manual#3 | page: 2\nTide table\nHigh at 06:10.",
    ),
    messages[0].content ?? "",
  );
  assert.deepEqual(groundingPassages(messages), passages);
});
