/**
 * Runs against a loopback model endpoint for CLI tests that need a run to
 * take a while (signals, locks, resume): a config over the rag arena, a
 * temporary folder, and the permissions a subprocess run needs.
 *
 * @module
 */

import { join } from "node:path";
import { ROOT } from "./cli.ts";
import { chatCompletion, startFakeOpenAIServer } from "./fake_openai_server.ts";
import { tempTree } from "./temp.ts";
import { waitUntil } from "./wait.ts";

/** A config over the rag arena whose model is the OpenAI-compatible endpoint at `baseUrl`. */
export function endpointConfig(baseUrl: string, extra = "", timeoutS = 5): string {
  return `name: endpoint
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: test-model, base_url: "${baseUrl}", api_key_env: null, max_retries: 0, timeout_s: ${timeoutS}}
evaluation: {concurrency: 1}
systems:
  - {type: closed_book, name: closed_book}
${extra}`;
}

/**
 * A config whose model is a loopback endpoint answering each request after
 * `delayMs`, a temporary folder, and the permissions a subprocess run needs.
 */
export async function slowEndpointRun(
  delayMs: number,
  options: {
    /** Requests after the first wait for this instead, until the run ends (and the model's timeout is 600 s). */
    holdLater?: AbortSignal;
  } = {},
) {
  let requests = 0;
  const { holdLater } = options;
  const server = startFakeOpenAIServer(async () => {
    requests++;
    if (holdLater && requests > 1) {
      await new Promise((r) => holdLater.aborted ? r(0) : holdLater.addEventListener("abort", r));
    } else {
      await new Promise((r) => setTimeout(r, delayMs));
    }
    return { json: chatCompletion({ content: "It is 330." }) };
  });
  const t = await tempTree({
    "c.yaml": endpointConfig(server.baseUrl, "", holdLater ? 600 : 5),
  });
  const port = new URL(server.baseUrl).port;
  const out = join(t.dir, "run");
  return {
    t,
    out,
    /** The loopback endpoint's base URL. */
    baseUrl: server.baseUrl,
    /** `run c.yaml --cache off --out OUT --quiet`. */
    runArgs: ["run", t.path("c.yaml"), "--cache", "off", "--out", out, "--quiet"],
    /** `run c.yaml --cache off --resume OUT --quiet`. */
    resumeArgs: ["run", t.path("c.yaml"), "--cache", "off", "--resume", out, "--quiet"],
    permissions: [
      `--allow-read=${ROOT},${t.dir}`,
      `--allow-write=${t.dir}`,
      `--allow-net=127.0.0.1:${port}`,
    ],
    async [Symbol.asyncDispose]() {
      await t[Symbol.asyncDispose]();
      await server.close();
    },
  };
}

/** Waits (bounded: the patience of wait.ts) until `path` has `count` complete lines. */
export async function waitForLines(path: string, count: number): Promise<void> {
  const lines = async () => (await Deno.readTextFile(path).catch(() => "")).split("\n").length - 1;
  if (!(await waitUntil(async () => await lines() >= count))) {
    throw new Error(`${path} never reached ${count} lines`);
  }
}
