import assert from "node:assert/strict";
import process from "node:process";
import {
  type CodeLimits,
  type CodeSandbox,
  createCodeSandbox,
  MAX_ANSWER_CHARS,
  type ProgramOutcome,
} from "../../../tools/sandbox/code_host.ts";
import { isRunning, killAll } from "../../support/processes.ts";
import { waitUntil } from "../../support/wait.ts";

const LIMITS: CodeLimits = { cpuMs: 5000, wallMs: 60_000, memoryMb: 64, maxPrintChars: 2000 };
const never = new AbortController().signal;

interface Calls {
  seen: Array<[string, string]>;
}

/** Runs `program` in a fresh sandbox with a `search` that echoes its query. */
async function runIn(
  program: string,
  options: {
    limits?: Partial<CodeLimits>;
    signal?: AbortSignal;
    delayMs?: number;
    keep?: (sandbox: CodeSandbox) => Promise<void>;
  } = {},
): Promise<ProgramOutcome & Calls> {
  const sandbox = createCodeSandbox({ ...LIMITS, ...options.limits });
  const seen: Array<[string, string]> = [];
  try {
    const outcome = await sandbox.run({
      program,
      tools: ["search"],
      signal: options.signal ?? never,
      async call(tool, args) {
        seen.push([tool, args]);
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
        return `results for ${args}`;
      },
    });
    await options.keep?.(sandbox);
    return { ...outcome, seen };
  } finally {
    await sandbox.close();
  }
}

/** The process is gone (or a zombie). */
function gone(pid: number | null): boolean {
  assert.ok(pid !== null);
  return !isRunning(pid);
}

Deno.test("code sandbox: a program calls a tool, prints, and answers", async () => {
  const outcome = await runIn(
    'const r = await search({query: "eiffel"}); print("got", r.length); final_answer("330 m");',
  );
  assert.equal(outcome.status, "answered");
  assert.equal(outcome.status === "answered" && outcome.answer, "330 m");
  assert.deepEqual(outcome.seen, [["search", '{"query":"eiffel"}']]);
  assert.equal(outcome.printed, "got 30\n");
});

Deno.test("code sandbox: the program cannot read a file, even by importing it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/secret.json`, '{"secret": "hunter2"}');
    await Deno.writeTextFile(`${dir}/secret.js`, 'export default "hunter2";');
    const outcome = await runIn(`
      const out = [];
      for (const f of [
        () => Deno.readTextFile(${JSON.stringify(`${dir}/secret.json`)}),
        () => Deno.readTextFileSync(${JSON.stringify(`${dir}/secret.json`)}),
        () => import(${JSON.stringify(`file://${dir}/secret.js`)}),
        () => import(${JSON.stringify(`${dir}/secret.json`)}, {with: {type: "json"}}),
        async () => (await import("node:fs")).readFileSync(${
      JSON.stringify(`${dir}/secret.json`)
    }, "utf8"),
      ]) {
        try { out.push("READ " + JSON.stringify(await f())); } catch (e) { out.push(e.name); }
      }
      final_answer(out.join(","));`);
    assert.equal(outcome.status, "answered", JSON.stringify(outcome));
    const answer = outcome.status === "answered" ? outcome.answer : "";
    assert.ok(!answer.includes("hunter2"), answer);
    assert.ok(!answer.includes("READ"), answer);
    assert.match(answer, /^NotCapable,NotCapable,TypeError,TypeError,NotCapable$/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("code sandbox: the program cannot read the environment or spawn a process", async () => {
  Deno.env.set("RAGBENCH_TEST_SECRET", "hunter2");
  try {
    const outcome = await runIn(`
      const out = [];
      for (const f of [
        () => Deno.env.get("RAGBENCH_TEST_SECRET"),
        () => Deno.env.toObject(),
        () => new Deno.Command("/bin/sh", {args: ["-c", "echo hunter2"]}).outputSync(),
        () => new Deno.Command("${Deno.execPath()}", {args: ["--version"]}).output(),
        () => Deno.hostname(),
      ]) {
        try { out.push("GOT " + JSON.stringify(await f())); } catch (e) { out.push(e.name); }
      }
      final_answer(out.join(","));`);
    const answer = outcome.status === "answered" ? outcome.answer : JSON.stringify(outcome);
    assert.ok(!answer.includes("hunter2"), answer);
    assert.equal(answer, "NotCapable,NotCapable,NotCapable,NotCapable,NotCapable");
  } finally {
    Deno.env.delete("RAGBENCH_TEST_SECRET");
  }
});

Deno.test("code sandbox: the program cannot reach the network (the loopback server sees no request)", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    requests++;
    return new Response("hunter2");
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const outcome = await runIn(`
      const out = [];
      for (const f of [
        () => fetch(${JSON.stringify(url)}).then((r) => r.text()),
        () => Deno.connect({hostname: "127.0.0.1", port: ${server.addr.port}}),
        () => new Promise((resolve, reject) => {
          const ws = new WebSocket(${JSON.stringify(url.replace("http", "ws"))});
          ws.onopen = () => resolve("open");
          ws.onerror = () => reject(new Error("ws failed"));
        }),
      ]) {
        try { out.push("GOT " + String(await f())); } catch (e) { out.push(e.name); }
      }
      final_answer(out.join(","));`);
    const answer = outcome.status === "answered" ? outcome.answer : JSON.stringify(outcome);
    assert.ok(!answer.includes("GOT"), answer);
    assert.match(answer, /^NotCapable,NotCapable,/);
    assert.equal(requests, 0);
  } finally {
    await server.shutdown();
  }
});

Deno.test("code sandbox: prototype tricks on the tool functions reach nothing with permissions", async () => {
  const outcome = await runIn(`
    const out = [];
    for (const f of [
      () => search.constructor("return Deno")().readTextFileSync("/etc/passwd"),
      () => Object.getPrototypeOf(async function () {}).constructor("return Deno.env.get('HOME')")(),
      () => search.constructor.constructor("return globalThis")().Deno.env.toObject(),
      () => Object.getPrototypeOf(final_answer).constructor("return Deno")().statSync("/etc"),
      () => [...Deno[Deno.internal] ? [1] : []].length && Deno.readFileSync("/etc/hostname"),
    ]) {
      try { out.push("GOT " + String(await f())); } catch (e) { out.push(e.name); }
    }
    final_answer(out.join(","));`);
  const answer = outcome.status === "answered" ? outcome.answer : JSON.stringify(outcome);
  assert.equal(answer, "NotCapable,NotCapable,NotCapable,NotCapable,NotCapable");
});

Deno.test("code sandbox: a program that corrupts JSON and Array.prototype cannot corrupt the parent", async () => {
  // The child captured what it needs before the program ran: an honest answer still arrives.
  const honest = await runIn(`
    JSON.stringify = () => "{}"; JSON.parse = () => ({});
    Array.prototype.push = function () { throw new Error("no"); };
    Object.prototype.status = "answered";
    const r = await search({query: "x"});
    final_answer("still " + r);`);
  assert.equal(honest.status, "answered", JSON.stringify(honest));
  assert.equal(honest.status === "answered" && honest.answer, 'still results for {"query":"x"}');

  // Forged protocol messages are validated: unknown keys, __proto__, wrong types, garbage.
  for (
    const forged of [
      '{"type":"done","status":"answered","answer":"pwned","printed":"","printed_cut":false,"extra":1}',
      '{"type":"done","status":"answered","answer":"pwned","printed":"","printed_cut":false,"__proto__":{"x":1}}',
      '{"type":"done","status":"answered","answer":7,"printed":"","printed_cut":false}',
      '{"type":"call","id":-1,"tool":"search","args":"{}"}',
      "not json at all",
    ]
  ) {
    const outcome = await runIn(
      `Deno.stdout.writeSync(new TextEncoder().encode(${JSON.stringify(forged + "\n")}));
       await new Promise((r) => setTimeout(r, 2000));`,
    );
    assert.equal(outcome.status, "error", forged);
    assert.equal(outcome.status === "error" && outcome.kind, "protocol", forged);
    assert.deepEqual(outcome.seen, [], forged);
  }
});

Deno.test("code sandbox: tool arguments that cannot be sent come back to the program as errors", async () => {
  const outcome = await runIn(`
    const a = {}; a.self = a;
    const out = [await search(a), await search({query: "x".repeat(200000)}), await search({n: 1n})];
    final_answer(out.join("|"));`);
  assert.equal(outcome.status, "answered", JSON.stringify(outcome));
  const parts = (outcome.status === "answered" ? outcome.answer : "").split("|");
  assert.match(parts[0], /^Error \(invalid_args\): the arguments cannot be sent as JSON \(/);
  assert.equal(parts[1], "Error (invalid_args): the arguments are longer than 100000 characters.");
  assert.match(parts[2], /^Error \(invalid_args\): the arguments cannot be sent as JSON/);
  assert.deepEqual(outcome.seen, []);
});

Deno.test("code sandbox: syntax errors, exceptions and a missing final_answer are reported", async () => {
  const syntax = await runIn("const = 1;");
  assert.equal(syntax.status === "error" && syntax.kind, "syntax");
  assert.match(syntax.status === "error" ? syntax.message : "", /^SyntaxError: /);
  const thrown = await runIn('print("before"); null.x;');
  assert.equal(thrown.status === "error" && thrown.kind, "exception");
  assert.match(thrown.status === "error" ? thrown.message : "", /^TypeError: /);
  assert.equal(thrown.printed, "before\n");
  const silent = await runIn('print({a: 1}, [2], "three");');
  assert.equal(silent.status, "no_answer");
  assert.equal(silent.printed, '{"a":1} [2] three\n');
});

Deno.test("code sandbox: final_answer turns values into text, and refuses, saying why, what has none", async () => {
  const answers: Array<[string, string]> = [
    ["final_answer(12345678901234567890n)", "12345678901234567890"],
    ["final_answer({a: [1, 'x'], b: null})", '{"a":[1,"x"],"b":null}'],
    ["final_answer(42)", "42"],
    ["final_answer(Symbol('s'))", "Symbol(s)"],
    ["try { final_answer(1n, 2) } finally { }", "1"],
  ];
  for (const [program, answer] of answers) {
    const outcome = await runIn(program);
    assert.deepEqual(
      outcome.status === "answered" && [outcome.answer, outcome.answerCut],
      [answer, false],
      `${program}: ${JSON.stringify(outcome)}`,
    );
  }
  const refused: Array<[string, RegExp]> = [
    [
      "final_answer({toJSON() { throw new RangeError('bad') }})",
      /^final_answer could not turn its value into text \(RangeError: bad\)$/,
    ],
    [
      "final_answer(new Proxy({}, {get() { throw new Error('get trap') }, ownKeys() { throw new Error('keys') }}))",
      /^final_answer could not turn its value into text \(Error: get trap\)$/,
    ],
    [
      "final_answer(new Proxy(function () {}, {get() { throw 'x' }, apply() { throw 'y' }}))",
      /^final_answer could not turn its value into text \(thrown value: "x"\)$/,
    ],
    ["final_answer({n: 1n})", /^final_answer could not turn its value into text \(TypeError: /],
    ["const a = []; a.push(a); final_answer(a)", /\(TypeError: .*circular/],
    ["final_answer()", /^final_answer\(\) was called without a value \(or with undefined\)$/],
    ["final_answer(undefined)", /without a value/],
    // A program that catches the refusal and ends without another answer is still told why.
    [
      "try { final_answer({toJSON() { throw 1 }}) } catch {} print('went on')",
      /thrown value: 1/,
    ],
  ];
  for (const [program, message] of refused) {
    const outcome = await runIn(program);
    assert.equal(outcome.status === "error" && outcome.kind, "answer", JSON.stringify(outcome));
    assert.match(outcome.status === "error" ? outcome.message : "", message, program);
  }
  const later = await runIn("try { final_answer(() => {}, 1) } catch {} final_answer('fine')");
  assert.equal(later.status === "answered" && later.answer.startsWith("() =>"), true);
  const retried = await runIn("try { final_answer() } catch {} final_answer('second try')");
  assert.equal(retried.status === "answered" && retried.answer, "second try");
});

Deno.test("code sandbox: a final answer of megabytes is kept, cut at the answer limit and flagged", async () => {
  const big = await runIn("final_answer('y'.repeat(3_000_000))");
  assert.equal(big.status, "answered", JSON.stringify(big).slice(0, 300));
  assert.equal(big.status === "answered" && big.answer.length, MAX_ANSWER_CHARS);
  assert.equal(big.status === "answered" && big.answerCut, true);
  // Characters JSON escapes six times over, in the answer and in print, at their limits.
  const escaped = await runIn(
    "print('\\u0001'.repeat(200000)); final_answer('\\u0002'.repeat(200000))",
    { limits: { maxPrintChars: 100_000 } },
  );
  assert.equal(escaped.status, "answered", JSON.stringify(escaped).slice(0, 300));
  assert.equal(escaped.status === "answered" && escaped.answer, "\u0002".repeat(MAX_ANSWER_CHARS));
  assert.equal(escaped.printed.length, 100_000);
  // A cut never leaves half a surrogate pair.
  const pairs = await runIn("final_answer('a' + '\u{1F600}'.repeat(60000))");
  const answer = pairs.status === "answered" ? pairs.answer : "";
  assert.equal(answer.length, MAX_ANSWER_CHARS - 1);
  assert.equal(answer.isWellFormed(), true);
  // Short answers are not flagged.
  const small = await runIn("final_answer('x'.repeat(1000))");
  assert.equal(small.status === "answered" && small.answerCut, false);
});

Deno.test("code sandbox: a spinning program is killed at its CPU limit and its CPU reclaimed", async () => {
  let pid: number | null = null;
  // The program never ends and never waits: only its 0.3 s of CPU can end the run (the backstop
  // is ten minutes away), and the message says so.
  const outcome = await runIn("while (true) {}", {
    limits: { cpuMs: 300, wallMs: 600_000 },
    keep: (s) => {
      pid = s.pid;
      return Promise.resolve();
    },
  });
  assert.equal(outcome.status === "error" && outcome.kind, "timeout");
  assert.equal(
    outcome.status === "error" && outcome.message,
    "The program used more than 0.3 s of CPU time and was stopped.",
  );
  assert.ok(gone(pid), "the spinning process was killed");
  const before = process.cpuUsage();
  const wallStart = performance.now();
  await new Promise((r) => setTimeout(r, 500));
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000;
  assert.ok(
    cpuMs < (performance.now() - wallStart) * 0.2,
    `used ${cpuMs} ms of CPU after the kill`,
  );
});

Deno.test("code sandbox: neither limit counts the tool calls the parent runs", async () => {
  const outcome = await runIn(
    'await search({query: "a"}); await search({query: "b"}); final_answer("ok");',
    { limits: { cpuMs: 300, wallMs: 300 }, delayMs: 400 },
  );
  assert.equal(outcome.status, "answered", JSON.stringify(outcome));
});

Deno.test("code sandbox: a program that waits without using the CPU is stopped by the backstop", async () => {
  for (
    const wait of [
      "await new Promise((r) => setTimeout(r, 1e9));",
      "await new Promise(() => {});",
      "await search({query: 'a'}); await new Promise(() => {});",
    ]
  ) {
    let pid: number | null = null;
    // A minute of CPU it never uses: only the 0.5 s backstop can end it.
    const outcome = await runIn(wait, {
      limits: { cpuMs: 60_000, wallMs: 500 },
      keep: (s) => {
        pid = s.pid;
        return Promise.resolve();
      },
    });
    assert.deepEqual(outcome, {
      status: "error",
      kind: "timeout",
      message:
        "The program did not finish within 0.5 s (its tool calls not counted) and was stopped.",
      printed: "",
      printedCut: false,
      seen: outcome.seen,
    }, wait);
    assert.ok(gone(pid), wait);
  }
});

Deno.test("code sandbox: a sandbox slow to begin the program (its thread held, as on a loaded machine) does not charge the wait to it", async () => {
  const sandbox = createCodeSandbox({ ...LIMITS, cpuMs: 300 });
  const seen: string[] = [];
  const call = (_tool: string, args: string) => {
    seen.push(args);
    return Promise.resolve(`results for ${args}`);
  };
  try {
    const run = (program: string) =>
      sandbox.run({ program, tools: ["search"], call, signal: never });
    // The first program answers at once and leaves work behind that holds the process's only
    // JavaScript thread for 1.5 s: the next program is sent at once but cannot begin until then,
    // as when a loaded machine gives the process no core. That wait is not the program's.
    const first = await run(
      'setTimeout(() => { const end = Date.now() + 1500; while (Date.now() < end) {} }, 0); final_answer("first");',
    );
    assert.equal(first.status, "answered", JSON.stringify(first));
    const pid = sandbox.pid;
    // A program like the mock model's: a search, a print, an answer.
    const second = await run(
      'const r = await search({query: "Eiffel Tower"}); print(r.length); final_answer("330 m");',
    );
    assert.equal(second.status === "answered" && second.answer, "330 m", JSON.stringify(second));
    assert.deepEqual(seen, ['{"query":"Eiffel Tower"}']);
    assert.equal(sandbox.pid, pid, "the same process ran both: none was killed");
  } finally {
    await sandbox.close();
  }
});

Deno.test("code sandbox: allocation bombs, on the heap and in ArrayBuffers, hit the memory cap", async () => {
  for (
    const bomb of [
      "const a = []; for (;;) a.push(new Array(1e5).fill(1.5));",
      "const a = []; for (;;) a.push(new Uint8Array(1e7).fill(1));",
    ]
  ) {
    let pid: number | null = null;
    const outcome = await runIn(bomb, {
      limits: { memoryMb: 64, cpuMs: 20_000 },
      keep: (s) => {
        pid = s.pid;
        return Promise.resolve();
      },
    });
    assert.equal(outcome.status === "error" && outcome.kind, "memory", JSON.stringify(outcome));
    assert.equal(
      outcome.status === "error" && outcome.message,
      "The program used more than 64 MiB of memory and was stopped.",
    );
    assert.ok(gone(pid), bomb);
  }
});

Deno.test("code sandbox: floods of print() and of raw stdout are capped", async () => {
  const printed = await runIn(
    'for (let i = 0; i < 100000; i++) print("x".repeat(100)); final_answer("done");',
  );
  assert.equal(printed.status, "answered");
  assert.equal(printed.printed.length, LIMITS.maxPrintChars);
  assert.equal(printed.printedCut, true);
  const raw = await runIn(
    "for (;;) Deno.stdout.writeSync(new Uint8Array(1 << 20).fill(65));",
    { limits: { cpuMs: 20_000 } },
  );
  assert.equal(raw.status === "error" && raw.kind, "output_limit", JSON.stringify(raw));
});

Deno.test("code sandbox: the question's signal stops a program at once", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 300);
  const outcome = await runIn("while (true) {}", {
    limits: { cpuMs: 60_000 },
    signal: controller.signal,
  });
  // The signal ended it ("cancelled"), not the program's own 60 s limits ("timeout").
  assert.equal(outcome.status === "error" && outcome.kind, "cancelled");
});

Deno.test("code sandbox: a question's programs share one process; a killed one is replaced", async () => {
  const sandbox = createCodeSandbox({ ...LIMITS, cpuMs: 300 });
  const call = () => Promise.resolve("");
  try {
    const run = (program: string) => sandbox.run({ program, tools: [], call, signal: never });
    await run("globalThis.seen = 1;");
    const first = sandbox.pid;
    assert.deepEqual(await run("final_answer(String(globalThis.seen));"), {
      status: "answered",
      answer: "1",
      answerCut: false,
      printed: "",
      printedCut: false,
    });
    assert.equal(sandbox.pid, first);
    assert.equal((await run("for (;;) {}")).status, "error");
    const again = await run("final_answer(String(globalThis.seen));");
    assert.equal(again.status === "answered" && again.answer, "undefined");
    assert.notEqual(sandbox.pid, first);
  } finally {
    await sandbox.close();
  }
});

Deno.test("code sandbox: the process dies with ragbench, even while its program spins", async () => {
  const parent = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-run",
      "--allow-env",
      new URL("../../fixtures/code/spin_parent.ts", import.meta.url).pathname,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = parent.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pid = 0;
  try {
    const { value } = await reader.read();
    pid = Number(value?.trim());
    assert.ok(pid > 0, `the fixture printed ${value}`);
    await new Promise((r) => setTimeout(r, 500)); // the program is spinning by now
    assert.ok(!gone(pid), "the child runs while its parent lives");
    parent.kill("SIGKILL");
    await parent.status;
    assert.ok(await waitUntil(() => gone(pid)), "the child outlived its parent");
  } finally {
    // Once its parent is killed the child is no longer this process's descendant, and the
    // reaper (tests/support/reaper.ts) cannot see it: stop both here if the test failed.
    killAll(pid > 0 ? [pid, parent.pid] : [parent.pid]);
    await parent.status;
    await reader.cancel();
  }
});
