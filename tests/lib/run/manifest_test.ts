import assert from "node:assert/strict";
import type { Config } from "../../../lib/config/types.ts";
import { RagbenchError } from "../../../lib/errors.ts";
import {
  buildManifest,
  finishManifest,
  type ManifestInputs,
  parseManifest,
  resumedManifest,
} from "../../../lib/run/manifest.ts";
import { manifestDifferences } from "../../../lib/run/manifest_diff.ts";
import { METRIC_DEFINITIONS, SCORER_VERSION } from "../../../lib/score/definitions.ts";

function config(): Config {
  return {
    file: "/c/all.yaml",
    name: "all",
    corpus: ["/c/corpus.json"],
    questions: ["/c/q.yaml"],
    mock_script: ["/c/mock.yaml"],
    model: {
      provider: "openai",
      name: "gpt-4o-mini",
      base_url: null,
      api_key_env: "OPENAI_API_KEY",
      temperature: 0,
      max_output_tokens: null,
      timeout_s: 60,
      max_retries: 2,
      max_connection_failures: 5,
      rate_limit: null,
    },
    evaluation: {
      tools_now: "2026-01-01",
      concurrency: 4,
      repeats: 1,
      max_cost_usd: null,
      question_timeout_s: 300,
      retrieval_k: [1, 5, 10],
    },
    tools: { allow: [], allow_network: false, timeout_s: 10, max_output_chars: 4000, plugins: [] },
    retrievers: {},
    systems: [],
  };
}

function inputs(change: (i: ManifestInputs) => void = () => {}): ManifestInputs {
  const i: ManifestInputs = {
    version: "0.1.0",
    config: config(),
    mock: true,
    modelId: "mock:gpt-4o-mini",
    pricing: { input_per_mtok: 0.15, output_per_mtok: 0.6 },
    limit: null,
    questions: 15,
    files: {
      corpus: [{ path: "/c/corpus.json", sha256: "aa", files: 1 }],
      questions: [{ path: "/c/q.yaml", sha256: "bb", files: 1 }],
      mock_script: [{ path: "/c/mock.yaml", sha256: "cc", files: 1 }],
      custom_tools: [],
    },
    systems: [
      {
        name: "agent",
        type: "agent_search",
        options: { type: "agent_search", name: "agent", max_steps: 8 },
        prompts: ["You answer questions."],
        toolSpecs: [{ name: "search", description: "Search.", parameters: { type: "object" } }],
        model: "mock:gpt-4o-mini",
        networkTools: [],
      },
      {
        name: "closed",
        type: "closed_book",
        options: { type: "closed_book", name: "closed" },
        prompts: ["Answer from memory."],
        toolSpecs: [],
        model: "mock:gpt-4o-mini",
        networkTools: [],
      },
    ],
    startedAt: "2026-01-01T00:00:00.000Z",
    machine: { os: "linux", arch: "x86_64", cpus: 2, deno: "2.9.6" },
  };
  change(i);
  return i;
}

const differences = (change: (i: ManifestInputs) => void) =>
  manifestDifferences(buildManifest(inputs()), buildManifest(inputs(change)));

Deno.test("manifest: the same inputs give no difference, whatever the time, machine, version or concurrency", () => {
  assert.deepEqual(
    differences((i) => {
      i.startedAt = "2027-05-05T00:00:00.000Z";
      i.machine = { os: "darwin", arch: "aarch64", cpus: 8, deno: "2.9.7" };
      i.version = "0.2.0";
      i.config.evaluation.concurrency = 16;
      i.config.evaluation.max_cost_usd = 5;
    }),
    [],
  );
});

Deno.test("manifest: records hashes, the scorer, the selection and the machine", () => {
  const m = buildManifest(inputs());
  assert.equal(m.format, 1);
  assert.equal(m.ragbench_version, "0.1.0");
  assert.match(m.config_sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(m.scorer, { version: SCORER_VERSION, metrics: { ...METRIC_DEFINITIONS } });
  assert.match(m.scorer.metrics.retrieval_ranking, /ties keep first-seen order/);
  assert.deepEqual(m.selection, { limit: null, questions: 15 });
  assert.deepEqual(m.systems.map((s) => s.tools), [["search"], []]);
  assert.match(m.systems[0].prompts_sha256, /^[0-9a-f]{64}$/);
  assert.equal(m.ended_at, null);
  assert.deepEqual(m.machine, { os: "linux", arch: "x86_64", cpus: 2, deno: "2.9.6" });
  const text = JSON.stringify(m);
  assert.equal(parseManifest(text, "run.json").config_sha256, m.config_sha256);
});

Deno.test("manifest: mock against live is named", () => {
  assert.deepEqual(differences((i) => (i.mock = false)), [
    "mock: the earlier run used --mock; this one does not",
  ]);
});

Deno.test("manifest: a changed model, evaluation or tool rule names the key and both values", () => {
  assert.deepEqual(
    differences((i) => {
      i.config.model.name = "gpt-5";
      i.config.evaluation.repeats = 3;
      i.config.tools.max_output_chars = 100;
    }),
    [
      'model.name: "gpt-4o-mini" → "gpt-5"',
      "evaluation.repeats: 1 → 3",
      "tools.max_output_chars: 4000 → 100",
    ],
  );
});

Deno.test("manifest: a changed price table is a model difference, since costs are results", () => {
  assert.deepEqual(
    differences((i) => (i.pricing = { input_per_mtok: 0.15, output_per_mtok: 0.7 })),
    [
      'model.applied_price: {"input_per_mtok":0.15,"output_per_mtok":0.6} → {"input_per_mtok":0.15,"output_per_mtok":0.7}',
    ],
  );
});

Deno.test("manifest: a changed corpus, question or mock-script file is named by path", () => {
  assert.deepEqual(
    differences((i) => {
      i.files.corpus = [{ path: "/c/corpus.json", sha256: "zz", files: 1 }];
      i.files.questions = [{ path: "/c/other.yaml", sha256: "bb", files: 1 }];
      i.files.mock_script = [{ path: "/c/mock.yaml", sha256: "dd", files: 1 }];
    }),
    [
      'corpus: "/c/corpus.json" changed',
      'questions: the files differ (["/c/q.yaml"] → ["/c/other.yaml"])',
      'mock_script: "/c/mock.yaml" changed',
    ],
  );
});

Deno.test("manifest: a system's prompts, tool schemas, tools or entry are named by system", () => {
  assert.deepEqual(
    differences((i) => {
      i.systems = [
        {
          ...i.systems[0],
          prompts: ["Be brief."],
          toolSpecs: [{ name: "search", description: "Find.", parameters: { type: "object" } }],
        },
        { ...i.systems[1], options: { ...i.systems[1].options, description: "x" } },
      ];
    }),
    [
      'system "agent": its prompts changed',
      'system "agent": its tool schemas (descriptions or parameters) changed',
      'system "closed": its config entry changed',
    ],
  );
  assert.deepEqual(
    differences((i) => {
      i.systems = [{ ...i.systems[0], toolSpecs: [] }, { ...i.systems[1], name: "baseline" }];
    }),
    [
      'system "agent": offered tools ["search"] → []',
      'systems: "baseline" is new (not in the earlier run)',
      'systems: "closed" is not in this run',
    ],
  );
});

Deno.test("manifest: --limit, the scorer version and the metric definitions are compared", () => {
  assert.deepEqual(differences((i) => (i.limit = 3)), ["--limit: null → 3"]);
  const before = buildManifest(inputs());
  const newer = { ...before, scorer: { ...before.scorer, version: before.scorer.version + 1 } };
  assert.deepEqual(manifestDifferences(before, newer), [
    `scorer: version ${SCORER_VERSION} → ${SCORER_VERSION + 1}`,
  ]);
  const redefined = {
    ...before,
    scorer: { ...before.scorer, metrics: { ...before.scorer.metrics, mrr: "other" } },
  };
  assert.deepEqual(manifestDifferences(before, redefined), [
    "scorer: the metric definitions changed",
  ]);
});

Deno.test("manifest: a renamed config with nothing else changed still differs", () => {
  assert.deepEqual(differences((i) => (i.config.name = "other")), [
    "config: its name or description changed",
  ]);
});

Deno.test("manifest: a resumed manifest keeps the first start, adds a session with what --force overrode", () => {
  const first = finishManifest(buildManifest(inputs()), "2026-01-01T01:00:00.000Z");
  // The second session embedded passages: each session keeps its own indexing records.
  const indexing = {
    retriever: "dense",
    passages: 10,
    embedder: "openai:m",
    tokens: 0,
    cost_usd: 0,
    cached: 10,
  };
  const now = buildManifest(inputs((i) => {
    i.startedAt = "2026-01-02T00:00:00.000Z";
    i.indexing = [indexing];
  }));
  const resumed = finishManifest(
    resumedManifest(first, now, ["evaluation.repeats: 1 → 2"]),
    "2026-01-02T01:00:00.000Z",
  );
  assert.equal(resumed.started_at, "2026-01-01T00:00:00.000Z");
  assert.equal(resumed.ended_at, "2026-01-02T01:00:00.000Z");
  assert.deepEqual(resumed.sessions, [
    {
      started_at: "2026-01-01T00:00:00.000Z",
      ended_at: "2026-01-01T01:00:00.000Z",
      forced_differences: [],
      indexing: [],
    },
    {
      started_at: "2026-01-02T00:00:00.000Z",
      ended_at: "2026-01-02T01:00:00.000Z",
      forced_differences: ["evaluation.repeats: 1 → 2"],
      indexing: [indexing],
    },
  ]);
  // A run.json of an earlier version, without `indexing`, still parses.
  const old = JSON.parse(JSON.stringify(resumed));
  for (const session of old.sessions) delete session.indexing;
  assert.equal(parseManifest(JSON.stringify(old), "run.json").sessions.length, 2);
});

Deno.test("manifest: text that is not a run.json is a data error naming the file and the key", () => {
  for (
    const [text, message] of [
      ["{", /^"d\/run\.json" is not valid JSON, so it is not a ragbench run\.json\.$/],
      ["[]", /^"d\/run\.json" is not a ragbench run\.json of format 1 \(top level: /],
      [
        JSON.stringify({ ...buildManifest(inputs()), mock: "yes" }),
        /^"d\/run\.json" is not a ragbench run\.json of format 1 \(mock: /,
      ],
    ] as const
  ) {
    assert.throws(
      () => parseManifest(text, "d/run.json"),
      (e: unknown) => e instanceof RagbenchError && e.code === "data" && message.test(e.message),
    );
  }
});

Deno.test("manifest: a custom tool module hashed in one run and unreadable in the other is named as such", () => {
  const tool = (sha256: string | null) => (i: ManifestInputs) => {
    i.files.custom_tools = [{ path: "/c/tool.ts", sha256, files: sha256 ? 1 : 0 }];
  };
  const before = buildManifest(inputs(tool("aa")));
  assert.deepEqual(manifestDifferences(before, buildManifest(inputs(tool(null)))), [
    'custom_tools: "/c/tool.ts" was read in only one of the runs (read permission differs)',
  ]);
  assert.deepEqual(manifestDifferences(before, buildManifest(inputs(tool("bb")))), [
    'custom_tools: "/c/tool.ts" changed',
  ]);
});
