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
export function endpointConfig(baseUrl: string, extra = ""): string {
  return `name: endpoint
corpus: ${ROOT}arenas/rag/corpus.json
questions: ${ROOT}arenas/rag/questions.yaml
model: {name: test-model, base_url: "${baseUrl}", api_key_env: null, max_retries: 0, timeout_s: 5}
evaluation: {concurrency: 1}
systems:
  - {type: closed_book, name: closed_book}
${extra}`;
}

/** The longest a held reply waits for {@link slowEndpointRun}'s `release` (a test's bound). */
const HOLD_MAX_MS = 60_000;

/**
 * A config whose model is a loopback endpoint answering each request after
 * `delayMs`, a temporary folder, and the permissions a subprocess run needs.
 * With `holdAfter: n`, replies after the first n also wait until `release()`
 * (at most a minute), so the run is surely still going however loaded the
 * machine is.
 */
export async function slowEndpointRun(delayMs: number, options: { holdAfter?: number } = {}) {
  let replies = 0;
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const server = startFakeOpenAIServer(async () => {
    await new Promise((r) => setTimeout(r, delayMs));
    if (options.holdAfter !== undefined && ++replies > options.holdAfter) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([held, new Promise((r) => timer = setTimeout(r, HOLD_MAX_MS))]);
      clearTimeout(timer);
    }
    return { json: chatCompletion({ content: "It is 330." }) };
  });
  const t = await tempTree({ "c.yaml": endpointConfig(server.baseUrl) });
  const port = new URL(server.baseUrl).port;
  const out = join(t.dir, "run");
  return {
    t,
    out,
    /** Lets the replies held by `holdAfter` go. */
    release: () => release(),
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
      release();
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
