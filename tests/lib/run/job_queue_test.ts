import assert from "node:assert/strict";
import { JobQueue, type Taken } from "../../../lib/run/job_queue.ts";

interface TestJob {
  id: string;
  system: { ready?: Promise<void> };
}

function takeAll(queue: JobQueue<TestJob>): Array<string | Taken<TestJob>["kind"]> {
  const out: Array<string | Taken<TestJob>["kind"]> = [];
  for (let i = 0; i < 20; i++) {
    const taken = queue.take();
    if (taken.kind !== "job") {
      out.push(taken.kind);
      break;
    }
    out.push(taken.job.id);
  }
  return out;
}

Deno.test("job queue: jobs of a system not yet ready are set aside and come first once it is", async () => {
  let open = () => {};
  const slow = { ready: new Promise<void>((resolve) => open = resolve) };
  const fast = {};
  const jobs = [
    { id: "s1", system: slow },
    { id: "f1", system: fast },
    { id: "s2", system: slow },
    { id: "f2", system: fast },
    { id: "f3", system: fast },
  ];
  const queue = new JobQueue(jobs);
  assert.deepEqual(takeAll(queue), ["f1", "f2", "f3", "wait"]);
  const taken = queue.take();
  assert.equal(taken.kind, "wait");
  open();
  await (taken as { until: Promise<void> }).until;
  assert.deepEqual(takeAll(queue), ["s1", "s2", "done"]);
});

Deno.test("job queue: a system that cannot get ready fails the queue with its error", async () => {
  const broken = { ready: Promise.reject(new Error("sandbox could not start")) };
  broken.ready.catch(() => {});
  const queue = new JobQueue([{ id: "b1", system: broken }, { id: "x1", system: {} }]);
  const first = queue.take();
  assert.equal(first.kind === "job" && first.job.id, "x1");
  const waited = queue.take();
  assert.equal(waited.kind, "wait");
  await (waited as { until: Promise<void> }).until;
  const failed = queue.take();
  assert.equal(failed.kind, "failed");
  assert.match(String((failed as { error: unknown }).error), /could not start/);
});

Deno.test("job queue: with no readiness to wait for, plan order is kept; a ready system joins a tick later", async () => {
  const plain = {};
  assert.deepEqual(
    takeAll(new JobQueue([{ id: "a1", system: plain }, { id: "a2", system: plain }])),
    ["a1", "a2", "done"],
  );
  const already = { ready: Promise.resolve() };
  const queue = new JobQueue([{ id: "r1", system: already }, { id: "a1", system: plain }]);
  assert.deepEqual(takeAll(queue), ["a1", "wait"]);
  await Promise.resolve();
  assert.deepEqual(takeAll(queue), ["r1", "done"]);
});
