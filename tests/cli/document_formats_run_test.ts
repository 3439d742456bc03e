import assert from "node:assert/strict";
import { execCli, runCli } from "../support/cli.ts";
import { makePdf } from "../support/pdf_fixture.ts";
import { tempTree } from "../support/temp.ts";

const CONFIG = `name: formats
corpus: {path: docs, on_error: skip}
questions: questions.yaml
systems:
  - {type: rag, name: rag}
  - {type: agent_search, name: agent, tools: [read_document]}
`;

const QUESTIONS = `- id: tide
  question: When is high tide at the north pier?
  evidence: [manual]
  checks: [{type: icontains, value: "06:10"}]
- id: install
  question: Which command installs the harbor tools?
  evidence: [guide]
  checks: [{type: icontains, value: make install}]
- id: welcome
  question: What does the welcome page greet?
  evidence: [site/welcome]
  checks: [{type: icontains, value: harbor}]
`;

const GUIDE = `# Harbor tools guide

Build the tools from source.

\`\`\`sh
./configure --prefix=/opt/harbor
make install
\`\`\`

| pier  | length |
|-------|--------|
| north | 120 m  |
`;

async function formatsFolder() {
  const t = await tempTree({
    "c.yaml": CONFIG,
    "questions.yaml": QUESTIONS,
    "docs/guide.md": GUIDE,
    "docs/site/welcome.html":
      "<title>Welcome</title><nav>menu</nav><p>Welcome to the harbor visitor page.</p>",
    "docs/empty.txt": "",
  });
  await Deno.writeFile(
    t.path("docs/manual.pdf"),
    makePdf({
      pages: [["Harbor manual", "Opening hours are 9 to 5."], [
        "Tide table",
        "High tide at the north pier is at 06:10.",
      ]],
      title: "Harbor manual",
    }),
  );
  return t;
}

Deno.test("formats: a Markdown, HTML and PDF corpus runs with exactly the permissions printed; passages keep lines and pages", async () => {
  await using t = await formatsFolder();
  const permissions = await runCli([
    "permissions",
    t.path("c.yaml"),
    "--mock",
    "--out",
    t.path("out"),
  ]);
  assert.equal(permissions.code, 0, permissions.stderr);
  assert.match(
    permissions.stdout,
    new RegExp(`^--allow-run=${Deno.execPath()} +reading the corpus's PDF files`, "m"),
  );
  const flags = permissions.stdout.split("\n")[1].split(" ").filter((f) => f.startsWith("--allow"));
  const run = await execCli(flags, ["run", t.path("c.yaml"), "--mock", "--out", t.path("out")]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stderr,
    /corpus: skipped 1 unreadable file \(on_error: skip\): empty\.txt \(it is empty\)/,
  );
  const lines = (await Deno.readTextFile(t.path("out/per_question_results.jsonl"))).trim().split(
    "\n",
  )
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 6);
  const agentTide = lines.find((l) => l.system === "agent" && l.question_id === "tide");
  const search = agentTide.steps.find((s: { type: string; tool?: string }) => s.tool === "search");
  assert.match(
    search.result.output,
    /^\[1\] doc_id: manual \| passage: manual#1 \| page: 2 \| score: [\d.]+\nTide table\nHigh tide at the north pier is at 06:10\.$/m,
  );
  assert.equal(agentTide.retrieval.ranking[0], "manual");
  const agentInstall = lines.find((l) => l.system === "agent" && l.question_id === "install");
  const found =
    agentInstall.steps.find((s: { tool?: string }) => s.tool === "search").result.output;
  assert.ok(
    found.includes(
      "```sh\n./configure --prefix=/opt/harbor\nmake install\n```\n\n| pier  | length |",
    ),
    found,
  );
  for (const line of lines) {
    for (const step of line.steps) {
      if (step.type === "tool") assert.equal(step.result.error, null, JSON.stringify(step.result));
    }
  }
  const rag = lines.filter((l) => l.system === "rag");
  assert.deepEqual(rag.map((l) => [l.question_id, l.retrieval.ranking[0]]), [
    ["tide", "manual"],
    ["install", "guide"],
    ["welcome", "site/welcome"],
  ]);
});

Deno.test("formats: without --allow-run a PDF corpus stops with the flag to add, whatever on_error says", async () => {
  await using t = await formatsFolder();
  const result = await execCli(
    [`--allow-read=${t.dir}`],
    ["validate", t.path("c.yaml")],
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(
      `Cannot read the corpus's PDF files: reading them starts a process, which needs --allow-run=${Deno.execPath()}`,
    ),
  );
});

Deno.test("formats: an evidence id written with its file extension gets a did-you-mean naming the id", async () => {
  await using t = await formatsFolder();
  await Deno.writeTextFile(
    t.path("questions.yaml"),
    "- id: q\n  question: Tides?\n  evidence: [manual.pdf, ./guide.md, site/welcome.html]\n",
  );
  const result = await runCli(["validate", t.path("c.yaml")]);
  assert.equal(result.code, 2);
  for (
    const [written, id] of [["manual.pdf", "manual"], ["./guide.md", "guide"], [
      "site/welcome.html",
      "site/welcome",
    ]]
  ) {
    assert.match(
      result.stderr,
      new RegExp(
        `evidence names document "${
          written.replace(/\./g, "\\.")
        }", which the corpus does not have — did you mean "${id}"\\? A document's id is its path in the corpus folder without the file extension`,
      ),
    );
  }
});
