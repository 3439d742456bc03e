import assert from "node:assert/strict";
import { execCli, lineAfter, runPrinted } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

/** A config whose retriever embeds through an endpoint: a run needs the embedding cache folder. */
const EMBEDDING_CONFIG = `name: t
corpus: corpus.json
questions: q.yaml
retrievers:
  dense: {kind: vector, embedding: {provider: openai, model: text-embedding-3-small, base_url: "http://127.0.0.1:9/v1", api_key_env: EMBED_KEY}}
systems: [{type: rag, retriever: dense}]
`;

Deno.test("permissions without access to the cache folder's variables still prints, and says the flag that completes it", async () => {
  await using t = await tempTree({ "c.yaml": EMBEDDING_CONFIG });
  const env = { RAGBENCH_CACHE_DIR: t.path("cache") };
  const result = await execCli(
    [`--allow-read=${t.path("c.yaml")}`],
    ["permissions", t.path("c.yaml"), "--mock", "--out", t.path("run")],
    { env },
  );
  assert.equal(result.code, 0, result.stderr);
  // --mock: the embedder is the offline one, so no cache; without --mock it calls the endpoint.
  assert.doesNotMatch(result.stdout, /not complete/);
  const live = await execCli(
    [`--allow-read=${t.path("c.yaml")}`],
    ["permissions", t.path("c.yaml"), "--out", t.path("run")],
    { env },
  );
  assert.equal(live.code, 0, live.stderr);
  assert.match(
    live.stdout.split("\n")[1],
    / --allow-env=OPENAI_API_KEY,EMBED_KEY,RAGBENCH_CACHE_DIR,XDG_CACHE_HOME,HOME --allow-net=api\.openai\.com:443,127\.0\.0\.1:9$/,
  );
  assert.match(live.stdout, /^# not complete: the run uses the cache folder/m);
  const again = lineAfter(live.stdout, "--allow-write are missing above. Print them with:")
    .replace(/^# +/, "");
  assert.equal(
    again,
    `deno run --allow-read=${
      t.path("c.yaml")
    } --allow-env=RAGBENCH_CACHE_DIR,XDG_CACHE_HOME,HOME main.ts permissions ${
      t.path("c.yaml")
    } --out ${t.path("run")}`,
  );
  const complete = await runPrinted(again, { env });
  assert.equal(complete.code, 0, complete.stderr);
  assert.doesNotMatch(complete.stdout, /not complete/);
  assert.match(
    complete.stdout.split("\n")[1],
    new RegExp(
      `--allow-write=${t.path("run")},${
        t.path("cache")
      } --allow-env=OPENAI_API_KEY,EMBED_KEY,RAGBENCH_CACHE_DIR `,
    ),
  );
});

Deno.test("permissions that may not read the config names the command that may", async () => {
  const result = await execCli([], ["permissions", "configs/rag.yaml", "--mock"]);
  assert.equal(result.code, 2);
  assert.equal(
    result.stderr,
    'Cannot read the config "configs/rag.yaml": this process may not read it. Run:\n' +
      "  deno run --allow-read=configs/rag.yaml main.ts permissions configs/rag.yaml --mock\n",
  );
  const printed = await runPrinted(lineAfter(result.stderr, "may not read it. Run:"));
  assert.equal(printed.code, 0, printed.stderr);
  assert.match(printed.stdout, /^# deno run flags for: ragbench run configs\/rag\.yaml --mock$/m);
});
