import assert from "node:assert/strict";
import { join } from "node:path";
import { readJsonl } from "../../lib/report/jsonl.ts";
import type { QuestionResult } from "../../lib/types.ts";
import { ROOT, runCli } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const TOKEN = "tok-deployed-Secret-77";

/** Starts examples/rag_service/service.ts on an OS-chosen port; returns its port and a stop. */
async function startExampleService(): Promise<{ port: number; stop(): Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      "--allow-net=127.0.0.1",
      `--allow-read=${ROOT}`,
      "--allow-env=RAG_SERVICE_TOKEN",
      join(ROOT, "examples/rag_service/service.ts"),
      "0",
    ],
    clearEnv: true,
    env: { RAG_SERVICE_TOKEN: TOKEN, NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
  };
  try {
    const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    for (let i = 0; i < 200 && !/:(\d+)\/ask/.test(text); i++) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    reader.releaseLock();
    const port = Number(text.match(/127\.0\.0\.1:(\d+)\/ask/)?.[1]);
    assert.ok(port > 0, `the example service did not start: ${text}`);
    return { port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Every file under `dir` (recursively) holding `text`. */
function filesHolding(dir: string, text: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...filesHolding(path, text));
    else if (Deno.readTextFileSync(path).includes(text)) found.push(path);
  }
  return found;
}

Deno.test({
  name:
    "the example deployed pipeline runs live over HTTP and as a command, keeps its token out of the run folder, and --mock replays it",
  sanitizeResources: false,
  async fn() {
    const service = await startExampleService();
    await using t = await tempTree();
    try {
      // The bundled config, pointed at this test's port (and its token in the URL's query too).
      const example = join(ROOT, "examples/rag_service");
      const config = t.path("deployed.yaml");
      const text = Deno.readTextFileSync(join(example, "deployed.yaml"))
        .replace("127.0.0.1:8765/ask", `127.0.0.1:${service.port}/ask?key=\${RAG_SERVICE_TOKEN}`)
        .replaceAll("../../arenas/", `${ROOT}arenas/`)
        .replace(" command.ts]", ` ${join(example, "command.ts")}]`);
      Deno.writeTextFileSync(config, text);
      Deno.env.set("RAG_SERVICE_TOKEN", TOKEN);
      try {
        const systems = ["--systems", "my_service,my_pipeline"];
        const permissions = await runCli(["permissions", config, ...systems]);
        assert.equal(permissions.code, 0, permissions.stderr);
        assert.match(
          permissions.stdout,
          new RegExp(`--allow-net=127\\.0\\.0\\.1:${service.port}\\b`),
        );
        assert.match(permissions.stdout, /--allow-env=\S*RAG_SERVICE_TOKEN/);
        assert.match(permissions.stdout, /^--allow-run +running system my_pipeline's command/m);
        const mockPermissions = await runCli(["permissions", config, ...systems, "--mock"]);
        assert.doesNotMatch(mockPermissions.stdout, /RAG_SERVICE_TOKEN|--allow-run|--allow-net/);
        assert.match(mockPermissions.stdout, /the response cache \(--mock replays/);

        const cacheDir = t.path("cache");
        const live = await runCli([
          "run",
          config,
          ...systems,
          "--out",
          t.path("live"),
          "--cache-dir",
          cacheDir,
        ]);
        assert.equal(live.code, 0, live.stderr);
        assert.match(live.stdout, /^my_service +15 +0\.689 .* 0\.968 +1\.000 +0 /m);
        assert.match(live.stdout, /^my_pipeline +15 +0\.689 .* 0\.968 +1\.000 +0 /m);
        assert.match(
          live.stderr,
          /service answers \(read-write\): 0 reused, 30 missed, 30 recorded/,
        );
        const lines = await readJsonl(
          join(t.path("live"), "per_question_results.jsonl"),
        ) as QuestionResult[];
        assert.deepEqual(lines.filter((l) => l.error).map((l) => l.error!.message), []);
        const svc = lines.find((l) => l.system === "my_service" && l.question_id === "sh01")!;
        assert.equal(svc.retrieval.ranking[0], "mount_everest");
        assert.ok(svc.cost_usd !== null && svc.cost_usd > 0, "the service's reported cost");
        assert.ok(svc.usage.input_tokens > 0);
        assert.deepEqual(filesHolding(t.path("live"), TOKEN), []);

        const mock = await runCli([
          "run",
          config,
          ...systems,
          "--mock",
          "--out",
          t.path("mock"),
          "--cache-dir",
          cacheDir,
        ]);
        assert.equal(mock.code, 0, mock.stderr);
        assert.match(mock.stderr, /service answers \(replay\): 30 reused, 0 missed, 0 recorded/);
        const replayed = await readJsonl(
          join(t.path("mock"), "per_question_results.jsonl"),
        ) as QuestionResult[];
        const answers = (ls: QuestionResult[]) =>
          ls.map((l) => `${l.system} ${l.question_id} ${l.answer} ${l.passed}`).sort();
        assert.deepEqual(answers(replayed), answers(lines));

        // Never recorded (another cache folder): --mock says so and sends nothing.
        await service.stop();
        const missed = await runCli([
          "run",
          config,
          "--systems",
          "my_service",
          "--mock",
          "--out",
          t.path("missed"),
          "--cache-dir",
          t.path("empty-cache"),
        ]);
        assert.equal(missed.code, 1);
        assert.match(
          missed.stderr,
          /--mock: no recorded answer of system "my_service" for question "sh01" \(repeat 1\): it was never recorded/,
        );
      } finally {
        await Deno.remove(config).catch(() => {});
      }
    } finally {
      await service.stop();
    }
  },
});
