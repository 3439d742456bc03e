/**
 * The recipes in examples/ci/ run as written, here: GNU parallel's script
 * itself; the GitHub Actions workflow's and the Kubernetes Job's commands
 * taken from their YAML and executed in order, with the engine's part played
 * by the test (one folder a runner or pod, artifacts copied between them,
 * JOB_COMPLETION_INDEX set). Each recipe calls the installed `ragbench`
 * command (or `deno task ragbench`): the test puts on PATH the script that
 * the README's `deno install` line writes, so what runs is ragbench.ts with
 * the permissions it computes. Not checked here: GitHub's and Kubernetes'
 * own handling of the files (the actions, the scheduler, volumes).
 *
 * GNU parallel is Debian's `parallel` package: `.ci/run` installs it; where
 * it is missing, that test is skipped with a message.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../support/cli.ts";
import { tempTree } from "../support/temp.ts";

const CI = join(ROOT, "examples/ci");

function hasProgram(name: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${name}`], stdout: "null" })
    .outputSync().success;
}

/** A folder like a checkout (configs and arenas linked in) with `ragbench` on PATH. */
async function workspace(dir: string): Promise<{ env: Record<string, string> }> {
  await Deno.mkdir(join(dir, "bin"), { recursive: true });
  const exec = Deno.execPath();
  // What `deno install -g -n ragbench ... ragbench.ts` writes (README, "Install the ragbench command").
  await Deno.writeTextFile(
    join(dir, "bin/ragbench"),
    `#!/bin/sh\nexec "${exec}" run --no-prompt --allow-read ` +
      `--allow-env=RAGBENCH_CACHE_DIR,XDG_CACHE_HOME,HOME --allow-run="${exec}" ` +
      `"${ROOT}ragbench.ts" "$@"\n`,
  );
  await Deno.chmod(join(dir, "bin/ragbench"), 0o755);
  return {
    env: { PATH: `${join(dir, "bin")}:${Deno.env.get("PATH") ?? ""}`, NO_COLOR: "1" },
  };
}

async function checkout(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  // Copies, not links: the permissions ragbench computes name the paths as the config gives them.
  for (const folder of ["configs", "arenas"]) {
    await new Deno.Command("cp", { args: ["-r", join(ROOT, folder), join(dir, folder)] }).output();
  }
}

async function sh(
  command: string,
  options: { cwd: string; env: Record<string, string> },
): Promise<string> {
  const output = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd: options.cwd,
    env: options.env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `${command}\n${text}`);
  return text;
}

function resultLines(dir: string): number {
  return Deno.readTextFileSync(join(dir, "per_question_results.jsonl")).trimEnd().split("\n")
    .length;
}

Deno.test({
  name:
    "examples/ci/parallel.sh runs the bundled benchmark in 4 shards with GNU parallel and merges them",
  ignore: !hasProgram("parallel"),
  async fn() {
    await using t = await tempTree();
    const { env } = await workspace(t.dir);
    await checkout(t.path("repo"));
    const stderr = await sh(`${join(CI, "parallel.sh")}`, {
      cwd: t.path("repo"),
      env: { ...env, RAGBENCH: "ragbench" },
    });
    assert.match(stderr, /merged 4 shards of 4 into runs\/sharded\/merged\/ \(189 result lines\)/);
    assert.equal(resultLines(t.path("repo/runs/sharded/merged")), 189);
  },
});
if (!hasProgram("parallel")) {
  // deno-lint-ignore no-console
  console.error(
    "ci_recipes_test: skipped: GNU parallel is not installed (apt-get install parallel; .ci/run does)",
  );
}

Deno.test("the GitHub Actions workflow: a matrix of shards, artifacts, a merge job and the gate, its commands run in order", async () => {
  await using t = await tempTree();
  const { env } = await workspace(t.dir);
  const workflow = parse(Deno.readTextFileSync(join(CI, "github-actions.yml")));
  const shards = Number(workflow.env.SHARDS);
  const shardJob = workflow.jobs.shard;
  const mergeJob = workflow.jobs.merge;
  assert.deepEqual(shardJob.strategy.matrix.shard, Array.from({ length: shards }, (_, i) => i + 1));
  assert.equal(mergeJob.needs, "shard");
  const upload = shardJob.steps.find((s: { uses?: string }) =>
    s.uses?.startsWith("actions/upload-artifact")
  );
  const download = mergeJob.steps.find((s: { uses?: string }) =>
    s.uses?.startsWith("actions/download-artifact")
  );
  assert.equal(download.with.path, "shards");
  // The pattern catches every shard's artifact, and each lands in shards/<artifact name>.
  assert.equal(upload.with.name, "shard-${{ matrix.shard }}");
  assert.equal(download.with.pattern, "shard-*");

  // The bundled config would take minutes on a loaded machine; the rag arena's is the same path.
  const jobEnv = { ...env, SHARDS: String(shards), CONFIG: "configs/rag.yaml" };
  const expand = (text: string, shard?: number) =>
    text.replaceAll("${{ matrix.shard }}", String(shard)).replaceAll(
      "${{ env.SHARDS }}",
      String(shards),
    ).replaceAll("deno task ragbench", "ragbench");
  const artifacts = t.path("artifacts");
  for (const shard of shardJob.strategy.matrix.shard) {
    const runner = t.path(`runner-${shard}`);
    await checkout(runner);
    for (const step of shardJob.steps) {
      if (step.run) await sh(expand(step.run, shard), { cwd: runner, env: jobEnv });
      if (step === upload) {
        await sh(
          `mkdir -p "${artifacts}" && cp -r "${expand(step.with.path, shard)}" "${artifacts}/${
            expand(step.with.name, shard)
          }"`,
          { cwd: runner, env: jobEnv },
        );
      }
    }
  }
  const runner = t.path("runner-merge");
  await checkout(runner);
  // The baseline the team keeps in the repository: here, the unsharded run of the same config.
  await sh("ragbench run configs/rag.yaml --mock --quiet --out benchmarks/baseline", {
    cwd: runner,
    env: jobEnv,
  });
  let gated = false;
  for (const step of mergeJob.steps) {
    if (step === download) {
      await sh(`mkdir -p shards && cp -r "${artifacts}"/shard-* shards/`, {
        cwd: runner,
        env: jobEnv,
      });
    }
    if (!step.run) continue;
    const printed = await sh(expand(step.run), { cwd: runner, env: jobEnv });
    if (/compare .* --fail-on-regression/.test(step.run)) gated = true;
    if (/ merge /.test(step.run)) {
      assert.match(printed, new RegExp(`merged ${shards} shards of ${shards}`));
    }
  }
  assert.ok(gated, "the merge job gates on compare --fail-on-regression");
  assert.equal(
    resultLines(join(runner, "runs/merged")),
    resultLines(join(runner, "benchmarks/baseline")),
  );
});

Deno.test("the Kubernetes Indexed Job: each pod's command runs its shard from JOB_COMPLETION_INDEX, and the merge line joins them", async () => {
  await using t = await tempTree();
  const { env } = await workspace(t.dir);
  const text = Deno.readTextFileSync(join(CI, "k8s-indexed-job.yaml"));
  const job = parse(text);
  assert.equal(job.kind, "Job");
  assert.equal(job.spec.completionMode, "Indexed");
  const pods = job.spec.completions;
  assert.equal(job.spec.parallelism, pods);
  const container = job.spec.template.spec.containers[0];
  assert.deepEqual(container.command.slice(0, 2), ["sh", "-c"]);
  const script: string = container.command[2];
  assert.match(script, new RegExp(`--shard "\\$S/${pods}"`));
  // /bench is the pod's working folder (a checkout here), /results the shared volume (a folder).
  const bench = t.path("bench");
  await checkout(bench);
  const results = t.path("results");
  const local = (command: string) =>
    command.replaceAll("/results", results).replaceAll("configs/all.yaml", "configs/rag.yaml");
  for (let index = 0; index < pods; index++) {
    await sh(local(script), { cwd: bench, env: { ...env, JOB_COMPLETION_INDEX: String(index) } });
  }
  const merge = /^#\s+(ragbench merge .*)$/m.exec(text)![1];
  const printed = await sh(local(merge), { cwd: bench, env });
  assert.match(printed, new RegExp(`merged ${pods} shards of ${pods}`));
  const whole = t.path("whole");
  await sh(`ragbench run configs/rag.yaml --mock --quiet --out "${whole}"`, { cwd: bench, env });
  assert.equal(resultLines(join(results, "merged")), resultLines(whole));
});
