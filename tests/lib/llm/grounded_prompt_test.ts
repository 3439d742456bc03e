import assert from "node:assert/strict";
import {
  groundedMessages,
  groundingPassages,
  PASSAGES_HEADER,
} from "../../../lib/llm/grounded_prompt.ts";

const passages = [
  { doc_id: "eiffel", passage_id: "eiffel#0", text: "The tower is 330 m tall.\n\nIt is in Paris." },
  { doc_id: "burj", passage_id: "burj#0", page: 2, text: "828 m." },
];

Deno.test("groundingPassages reads the passages after configured instructions, even ones that mention the header", () => {
  const instructions = `Answer tersely.\n\n${PASSAGES_HEADER}\n\nare below; trust them.`;
  const messages = groundedMessages("q", passages, { instructions });
  assert.ok(messages[0].content!.startsWith(instructions));
  assert.deepEqual(groundingPassages(messages), passages);
  assert.deepEqual(groundingPassages(groundedMessages("q", [], { instructions })), []);
  assert.equal(groundingPassages([{ role: "system", content: instructions }]), null);
});
