import assert from "node:assert/strict";
import { JobQueue, type Taken } from "../../../lib/run/job_queue.ts";

interface TestJob {
  id: string;
  system: { ready?: Promise<void>; pending?: () => Promise<void> | null };
}

/** Takes jobs until the queue has none to give now; returns their ids and why it stopped. */
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

function jobsOf(spec: Array<[string, TestJob["system"]]>): TestJob[] {
  return spec.map(([id, system]) => ({ id, system }));
}

Deno.test("job queue: jobs of a system not yet ready are set aside and come first once it is", async () => {
  let open = () => {};
  const slow = { ready: new Promise<void>((resolve) => open = resolve) };
  const fast = {};
  const queue = new JobQueue(
    jobsOf([["s1", slow], ["f1", fast], ["s2", slow], ["f2", fast], ["f3", fast]]),
    { slots: 10 },
  );
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
  const queue = new JobQueue(jobsOf([["b1", broken], ["x1", {}]]), { slots: 4 });
  const first = queue.take();
  assert.equal(first.kind === "job" && first.job.id, "x1");
  const waited = queue.take();
  assert.equal(waited.kind, "wait");
  await (waited as { until: Promise<void> }).until;
  const failed = queue.take();
  assert.equal(failed.kind, "failed");
  assert.match(String((failed as { error: unknown }).error), /could not start/);
});

Deno.test("job queue: one system alone keeps plan order and every slot; a ready one joins a tick later", async () => {
  const plain = {};
  assert.deepEqual(
    takeAll(new JobQueue(jobsOf([["a1", plain], ["a2", plain], ["a3", plain]]), { slots: 3 })),
    ["a1", "a2", "a3", "done"],
  );
  const already = { ready: Promise.resolve() };
  const queue = new JobQueue(jobsOf([["r1", already], ["a1", plain]]), { slots: 4 });
  assert.deepEqual(takeAll(queue), ["a1", "wait"]);
  await Promise.resolve();
  assert.deepEqual(takeAll(queue), ["r1", "done"]);
});

Deno.test("job queue: while another system has jobs left, a system keeps one slot free for it", () => {
  const a = {};
  const b = {};
  const jobs = jobsOf([["a1", a], ["a2", a], ["a3", a], ["b1", b], ["b2", b]]);
  const queue = new JobQueue(jobs, { slots: 3 });
  const take = () => {
    const taken = queue.take();
    return taken.kind === "job" ? taken.job.id : taken.kind;
  };
  // Three slots: a may hold two; its third job waits while b has jobs to start.
  assert.deepEqual([take(), take(), take()], ["a1", "a2", "b1"]);
  queue.finished(jobs[3]); // b1 done: a still has two in flight, so the free slot goes to b.
  assert.equal(take(), "b2");
  queue.finished(jobs[0]); // a1 done: b has nothing left to start, so a may use every slot.
  assert.equal(take(), "a3");
  assert.equal(take(), "done");
});

Deno.test("job queue: with one slot, every system still gets it in plan order", () => {
  const a = {};
  const b = {};
  const jobs = jobsOf([["a1", a], ["b1", b], ["a2", a]]);
  const queue = new JobQueue(jobs, { slots: 1 });
  const order: string[] = [];
  for (let i = 0; i < 10; i++) {
    const taken = queue.take();
    if (taken.kind !== "job") break;
    order.push(taken.job.id);
    queue.finished(taken.job);
  }
  assert.deepEqual(order, ["a1", "b1", "a2"]);
});

Deno.test("job queue: a system that asks to wait (its process is being replaced) is set aside until its wait ends", async () => {
  let open = () => {};
  let wait: Promise<void> | null = null;
  let asked = 0;
  const restarting = { pending: () => (asked++, wait) };
  const other = {};
  const queue = new JobQueue(
    jobsOf([["r1", restarting], ["o1", other], ["r2", restarting], ["o2", other]]),
    { slots: 1 },
  );
  const first = queue.take();
  assert.equal(first.kind === "job" && first.job.id, "r1");
  queue.finished((first as { job: TestJob }).job);
  // r1 timed out: its process is being replaced. The other system's jobs go on meanwhile.
  wait = new Promise<void>((resolve) => open = resolve);
  const second = queue.take();
  assert.equal(second.kind === "job" && second.job.id, "o1");
  queue.finished((second as { job: TestJob }).job);
  const third = queue.take();
  assert.equal(third.kind === "job" && third.job.id, "o2");
  queue.finished((third as { job: TestJob }).job);
  const waiting = queue.take();
  assert.equal(waiting.kind, "wait");
  const asks = asked;
  // Held: asked no more while its wait runs.
  assert.equal(queue.take().kind, "wait");
  assert.equal(asked, asks);
  wait = null;
  open();
  await (waiting as { until: Promise<void> }).until;
  assert.deepEqual(takeAll(queue), ["r2", "done"]);
});
