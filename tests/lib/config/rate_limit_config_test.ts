import assert from "node:assert/strict";
import { REGISTRIES } from "../../../lib/plan/setup.ts";
import { parseConfig } from "../../../lib/config/load.ts";
import { ConfigError } from "../../../lib/errors.ts";
import { buildManifest } from "../../../lib/run/manifest.ts";
import { manifestDifferences } from "../../../lib/run/manifest_diff.ts";

const WHERE = { file: "c.yaml", absolute: "/project/configs/c.yaml" };
const BASE = `name: t
corpus: ../arenas/rag/corpus.json
questions: q.yaml
systems:
  - { type: closed_book, name: a }
`;

function error(text: string): string {
  try {
    parseConfig(text, WHERE, REGISTRIES);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e.message;
  }
  assert.fail("no error");
}

Deno.test("model.rate_limit: per-minute limits, default none, on the run's model and a system's own", () => {
  assert.equal(parseConfig(BASE, WHERE, REGISTRIES).model.rate_limit, null);
  const config = parseConfig(
    BASE.replace("systems:", "model: { rate_limit: { requests_per_minute: 500 } }\nsystems:") +
      "  - { type: closed_book, name: b, model: { rate_limit: { tokens_per_minute: 2e5 } } }\n",
    WHERE,
    REGISTRIES,
  );
  assert.deepEqual(config.model.rate_limit, { requests_per_minute: 500 });
  assert.deepEqual(config.systems[1].model.rate_limit, { tokens_per_minute: 200_000 });
});

Deno.test("model.rate_limit: an empty one, a typo, and a limit that is not positive are errors with the line", () => {
  const empty = error(BASE.replace("systems:", "model: { rate_limit: {} }\nsystems:"));
  assert.match(empty, /line 4/);
  assert.match(empty, /give requests_per_minute, tokens_per_minute or both/);
  const typo = error(
    BASE.replace("systems:", "model: { rate_limit: { request_per_minute: 5 } }\nsystems:"),
  );
  assert.match(typo, /request_per_minute/);
  assert.match(typo, /did you mean "requests_per_minute"/);
  assert.match(
    error(BASE.replace("systems:", "model: { rate_limit: { requests_per_minute: 0 } }\nsystems:")),
    /rate_limit\.requests_per_minute/,
  );
});

Deno.test("a changed rate_limit does not stop a resume: it paces requests, it decides no result", () => {
  const manifest = (limit: string) => {
    const config = parseConfig(
      BASE.replace("systems:", `model: { rate_limit: ${limit} }\nsystems:`),
      WHERE,
      REGISTRIES,
    );
    return buildManifest({
      version: "1",
      config,
      mock: false,
      modelId: "openai:m",
      pricing: null,
      limit: null,
      questions: 1,
      files: { corpus: [], questions: [], mock_script: [], custom_tools: [] },
      systems: [],
      startedAt: "t",
      machine: { os: "linux", arch: "x86_64", cpus: 1, deno: "2" },
    });
  };
  const a = manifest("{ requests_per_minute: 60 }");
  const b = manifest("{ requests_per_minute: 600 }");
  assert.deepEqual(manifestDifferences(a, b), []);
  assert.equal(a.config_sha256, b.config_sha256);
  assert.deepEqual(b.model.rate_limit, { requests_per_minute: 600 }, "still recorded");
});
