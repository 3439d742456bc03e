import assert from "node:assert/strict";
import { SingleFlight } from "../../../lib/cache/single_flight.ts";

/** A call that settles when the test says: `resolve(value)` or `reject(error)`. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => (resolve = res, reject = rej));
  return { promise, resolve, reject };
}

Deno.test("single flight: nothing in flight joins as null at once; a twin gets the flight's value", async () => {
  const flights = new SingleFlight<string>();
  assert.equal(flights.join("k"), null);
  const call = deferred<string>();
  let calls = 0;
  const lead = flights.lead("k", () => (calls++, call.promise));
  const twin = flights.join("k");
  assert.ok(twin !== null);
  assert.equal(flights.join("other"), null);
  call.resolve("v");
  assert.equal(await lead, "v");
  assert.deepEqual(await twin, { value: "v" });
  assert.equal(calls, 1);
  assert.equal(flights.size, 0, "a settled flight is forgotten");
  assert.equal(flights.join("k"), null);
});

Deno.test("single flight: a failed flight is not its twins' (null), and a second leader of a key in flight runs alone", async () => {
  const flights = new SingleFlight<string>();
  const call = deferred<string>();
  const lead = flights.lead("k", () => call.promise);
  const twin = flights.join("k")!;
  assert.equal(await flights.lead("k", () => Promise.resolve("own")), "own");
  call.reject(new Error("connection reset"));
  await assert.rejects(lead, /connection reset/);
  assert.equal(await twin, null);
  // A call that throws before returning a promise is a failed flight too.
  const throwing = flights.lead("k", () => {
    throw new Error("at once");
  });
  await assert.rejects(throwing, /at once/);
  assert.equal(flights.size, 0);
});

Deno.test("single flight: a waiter's abort ends its wait with the signal's reason, not the flight", async () => {
  const flights = new SingleFlight<string>();
  const call = deferred<string>();
  const lead = flights.lead("k", () => call.promise);
  const stop = new AbortController();
  const waiting = flights.join("k", stop.signal)!;
  stop.abort(new Error("question timed out"));
  await assert.rejects(waiting, /question timed out/);
  await assert.rejects(flights.join("k", stop.signal)!, /question timed out/);
  call.resolve("v");
  assert.equal(await lead, "v");
});
