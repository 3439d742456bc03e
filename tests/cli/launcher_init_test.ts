import assert from "node:assert/strict";
import { join } from "node:path";
import { taskCli } from "../support/cli.ts";
import { makePdf } from "../support/pdf_fixture.ts";
import { tempTree } from "../support/temp.ts";

const MARKDOWN = `# Harbor bridge

The harbor bridge opened in 1932 after eight years of work. It carries 8 lanes of traffic
and 2 railway lines, and its arch spans 503 metres across the water.
`;

Deno.test("init through deno task ragbench writes a starter benchmark for a folder holding a PDF, and validate reads it", async () => {
  await using t = await tempTree({ "docs/bridge.md": MARKDOWN });
  Deno.writeFileSync(
    t.path("docs/manual.pdf"),
    makePdf({
      title: "Ferry manual",
      pages: [["The ferry leaves the pier every 20 minutes."], ["Tickets cost 4 dollars."]],
    }),
  );
  const out = t.path("bench");
  // init needs read of the documents, read and write of --dir, and the PDF reader's process:
  // the launcher grants exactly that, so a missing entry fails here with a permission error.
  const init = await taskCli(["init", t.path("docs"), "--dir", out]);
  assert.equal(init.code, 0, init.stderr + init.stdout);
  const config = join(out, "ragbench.yaml");
  assert.ok(Deno.statSync(config).isFile);
  assert.ok(Deno.statSync(join(out, "questions.yaml")).isFile);
  // validate through the launcher reads the PDF too (its process needs --allow-run).
  const validate = await taskCli(["validate", config]);
  assert.equal(validate.code, 0, validate.stderr + validate.stdout);
  assert.match(validate.stdout + validate.stderr, /OK/);
});
