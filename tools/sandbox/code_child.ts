/**
 * The subprocess side of the code agent's sandbox: runs the model's
 * JavaScript programs, one at a time, and relays their tool calls to the
 * parent over stdout / stdin (one JSON message a line).
 *
 * {@link codeChildMain} is never imported into the child: the parent sends
 * its source text (`codeChildMain.toString()`, with `lineSplitter`'s, which
 * it is given to read stdin) as the child's main module, a `data:` URL, so
 * the function must be self-contained (no imports at run time, no
 * references to this module's scope). It runs in a `deno run` with no
 * permission flags at all and an import map that sends every `file:` URL to
 * a blocked remote host, so a program cannot load a local file as a module
 * (Deno loads local modules without read permission).
 *
 * Nothing here is trusted by the parent: a program can overwrite anything
 * this code relies on, and the parent validates every message it receives.
 * The primordials are captured before any program runs so that an honest
 * program that changes `JSON` or `Array.prototype` for its own purposes does
 * not break the protocol.
 *
 * Protocol (see `code_host.ts` for the schemas):
 * - child → parent: `{type: "ready"}`; `{type: "call", id, tool, args}` with
 *   `args` the JSON text of the arguments; `{type: "done", status, answer?,
 *   answer_cut?, error?, printed, printed_cut}` (the answer is cut at
 *   `answer_limit` here, so that a long one fits the parent's line limit).
 * - parent → child: `{type: "run", program, tools, print_limit,
 *   answer_limit}`; `{type: "result", id, text}`.
 *
 * `Deno.args[0]` is the memory limit in bytes, `Deno.args[1]` a program's
 * CPU-time limit in milliseconds. A watchdog Worker (its own thread and
 * isolate, so a busy program can neither starve nor reach it) writes a
 * marker line to stderr and kills the process (`Deno.kill(Deno.pid,
 * "SIGKILL")` needs no permission; a worker's `Deno.exit()` would end only
 * the worker) when the process's resident memory passes its limit — memory
 * outside the V8 heap (ArrayBuffers) is not bounded by
 * `--max-old-space-size` — or when the running program has used its CPU
 * time. It also kills the process when its parent pid changes: ragbench died
 * without closing it (SIGKILL), and a spinning program would otherwise run
 * on.
 *
 * A program's CPU time is the whole process's user + system time (every
 * thread: the program, the Workers it starts, V8's helpers and the
 * watchdog's own polling) from the moment the watchdog takes its reading at
 * the program's start until the program settles. The main thread asks the
 * watchdog to start counting and runs the program only once it has answered,
 * so the count is on before the program's first instruction; it tells the
 * watchdog when the program has settled. The process is `ready` only once the
 * watchdog runs, so neither Deno's start nor the Worker's is ever counted. The
 * CPU time of a process does not grow while other processes hold the cores,
 * which is why this, and not the time on a clock, is the program's limit.
 *
 * @module
 */

import type { lineSplitter } from "./line_splitter.ts";

/** The marker line the watchdog writes to stderr when memory passes the limit. */
export const MEMORY_MARKER = "\u001eragbench-code-memory-limit";
/** The marker line the watchdog writes to stderr when a program has used its CPU time. */
export const CPU_MARKER = "\u001eragbench-code-cpu-limit";

/**
 * The child's whole program; see the module doc. Must stay self-contained:
 * `split` is `lineSplitter`, passed in from its own source text.
 */
export function codeChildMain(split: typeof lineSplitter): void {
  const D = (globalThis as unknown as { Deno: typeof Deno }).Deno;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const encoder = new TextEncoder();
  const encode = encoder.encode.bind(encoder);
  const stdout = D.stdout;
  const writeSync = stdout.writeSync.bind(stdout);
  const stringOf = String;
  const promiseCtor = Promise;
  const mapCtor = Map;
  const errorCtor = Error;
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (
    ...args: string[]
  ) => (...args: unknown[]) => Promise<unknown>;
  const limitBytes = Number(D.args[0]);
  const cpuLimitMs = Number(D.args[1]);
  const marker = "\u001eragbench-code-memory-limit";
  const cpuMarker = "\u001eragbench-code-cpu-limit";
  /** Tells the watchdog to start (`start`, with a number it echoes) or stop counting CPU time. */
  let toWatchdog: (message: unknown) => void = () => {};
  /** Resolvers of `start` messages the watchdog has not answered yet, by number. */
  const counting = new mapCtor<number, () => void>();
  let nextStart = 1;

  const send = (message: unknown) => {
    const bytes = encode(stringify(message) + "\n");
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(bytes.subarray(offset));
  };

  const pending = new mapCtor<number, (text: string) => void>();
  let nextId = 1;
  let running = false;

  const runProgram = async (
    program: string,
    tools: string[],
    printLimit: number,
    answerLimit: number,
  ) => {
    let printed = "";
    let cut = false;
    /**
     * Where the program's answer stands: none yet, the last final_answer call refused (and
     * why: the program may still answer later), or given (for good: later calls are ignored).
     */
    type Answer =
      | { s: "none" }
      | { s: "refused"; why: string }
      | { s: "answered"; text: string; cut: boolean };
    // Changed inside final_answer: the checker would keep it narrowed to its first value.
    let answer = { s: "none" } as Answer;
    const print = (...values: unknown[]) => {
      if (cut) return;
      let line = "";
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        let text: string;
        try {
          text = typeof v === "string" ? v : stringify(v) ?? stringOf(v);
        } catch {
          text = stringOf(v);
        }
        line += (i ? " " : "") + text;
      }
      printed += line + "\n";
      if (printed.length > printLimit) {
        printed = printed.slice(0, printLimit);
        cut = true;
      }
    };
    const stop = { stop: true };
    // The answer as text: a string as it is, a BigInt in digits, anything else as JSON (as
    // print does) or, when JSON has no text for it (a function, a symbol), String(). A value that
    // cannot be turned into text (toJSON or a Proxy trap throws, a cycle) is refused, and so is
    // no value at all: the model is told why and writes another program.
    const finalAnswer = (...values: unknown[]) => {
      if (answer.s === "answered") throw stop;
      const value = values[0];
      let text: string;
      try {
        if (values.length === 0 || value === undefined) {
          answer = {
            s: "refused",
            why: "final_answer() was called without a value (or with undefined)",
          };
          throw stop;
        }
        text = typeof value === "string"
          ? value
          : typeof value === "bigint"
          ? stringOf(value)
          : stringify(value) ?? stringOf(value);
        if (typeof text !== "string") text = stringOf(text);
      } catch (error) {
        if (error !== stop) {
          answer = {
            s: "refused",
            why: `final_answer could not turn its value into text (${describe(error)})`,
          };
        }
        throw stop;
      }
      let answerCut = false;
      if (text.length > answerLimit) {
        // Never cut a surrogate pair in half.
        const code = text.charCodeAt(answerLimit - 1);
        text = text.slice(0, code >= 0xd800 && code <= 0xdbff ? answerLimit - 1 : answerLimit);
        answerCut = true;
      }
      answer = { s: "answered", text, cut: answerCut };
      throw stop;
    };
    const toolFunction = (tool: string) => (args: unknown = {}) => {
      let text: string;
      try {
        text = stringify(args ?? {}) ?? "";
      } catch (error) {
        return promiseCtor.resolve(
          `Error (invalid_args): the arguments cannot be sent as JSON (${
            (error as Error)?.message
          }).`,
        );
      }
      if (text.length > 100_000) {
        return promiseCtor.resolve(
          "Error (invalid_args): the arguments are longer than 100000 characters.",
        );
      }
      const id = nextId++;
      return new promiseCtor<string>((resolve) => {
        pending.set(id, resolve);
        send({ type: "call", id, tool, args: text });
      });
    };
    const console = { log: print, info: print, warn: print, error: print, debug: print };
    // The program's CPU time counts from here (compiling it included): nothing runs before the
    // watchdog has its reading.
    const start = nextStart++;
    await new promiseCtor<void>((resolve) => {
      counting.set(start, resolve);
      toWatchdog({ type: "start", n: start });
    });
    let fn: (...args: unknown[]) => Promise<unknown>;
    try {
      fn = new AsyncFunction(...tools, "print", "final_answer", "console", program);
    } catch (error) {
      toWatchdog({ type: "end" });
      send({
        type: "done",
        status: "error",
        error: { kind: "syntax", message: describe(error) },
        printed,
        printed_cut: cut,
      });
      return;
    }
    try {
      await fn(...tools.map(toolFunction), print, finalAnswer, console);
    } catch (error) {
      if (error !== stop && answer.s !== "answered") {
        toWatchdog({ type: "end" });
        send({
          type: "done",
          status: "error",
          error: { kind: "exception", message: describe(error) },
          printed,
          printed_cut: cut,
        });
        return;
      }
    }
    toWatchdog({ type: "end" });
    send(
      answer.s === "answered"
        ? {
          type: "done",
          status: "answered",
          answer: answer.text,
          answer_cut: answer.cut,
          printed,
          printed_cut: cut,
        }
        : answer.s === "refused"
        ? {
          type: "done",
          status: "error",
          error: { kind: "answer", message: answer.why },
          printed,
          printed_cut: cut,
        }
        : { type: "done", status: "no_answer", printed, printed_cut: cut },
    );
  };

  function describe(error: unknown): string {
    try {
      if (error instanceof errorCtor) return `${error.name}: ${error.message}`;
      return `thrown value: ${stringify(error) ?? stringOf(error)}`;
    } catch {
      return "an exception that cannot be described";
    }
  }

  const onMessage = (line: string) => {
    let message: {
      type?: unknown;
      id?: unknown;
      text?: unknown;
      program?: unknown;
      tools?: unknown;
      print_limit?: unknown;
      answer_limit?: unknown;
    };
    try {
      message = parse(line);
    } catch {
      return;
    }
    if (message.type === "result" && typeof message.id === "number") {
      const resolve = pending.get(message.id);
      pending.delete(message.id);
      resolve?.(typeof message.text === "string" ? message.text : "");
    } else if (message.type === "run" && !running && typeof message.program === "string") {
      running = true;
      const tools = Array.isArray(message.tools) ? message.tools.map(stringOf) : [];
      runProgram(
        message.program,
        tools,
        Number(message.print_limit) || 4000,
        Number(message.answer_limit) || 100_000,
      ).finally(() => {
        running = false;
      });
    }
  };

  (async () => {
    // Made now, before any program runs: the splitter takes the built-ins it uses as it is made.
    const splitter = split(Infinity, (event) => {
      if (event.type === "line") onMessage(event.text);
    });
    // The watchdog's CPU reading is the whole process's (getrusage: every thread). `since` is the
    // reading at the running program's start, null between programs.
    const watchdog = `import process from "node:process";
const limit = ${limitBytes};
const cpuLimitMs = ${cpuLimitMs};
const parent = Deno.ppid;
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const die = (line) => {
  Deno.stderr.writeSync(new TextEncoder().encode(line + "\\n"));
  Deno.kill(Deno.pid, "SIGKILL");
};
let since = null;
const check = () => {
  if (Deno.ppid !== parent) Deno.kill(Deno.pid, "SIGKILL");
  const rss = Deno.memoryUsage().rss;
  if (rss > limit) die(${stringify(marker)} + " " + rss);
  if (since !== null) {
    const used = cpuMs() - since;
    if (used > cpuLimitMs) die(${stringify(cpuMarker)} + " " + Math.round(used));
  }
};
self.onmessage = (event) => {
  const message = event.data;
  if (message.type === "start") {
    since = cpuMs();
    self.postMessage({ type: "counting", n: message.n });
  } else if (message.type === "end") {
    since = null;
  }
};
setInterval(check, 10);
self.postMessage({ type: "up" });`;
    const worker = new Worker("data:text/javascript," + encodeURIComponent(watchdog), {
      type: "module",
    });
    toWatchdog = worker.postMessage.bind(worker);
    await new promiseCtor<void>((resolve, reject) => {
      worker.onerror = (event) => reject(new errorCtor(`the watchdog failed: ${event.message}`));
      worker.onmessage = (event: MessageEvent) => {
        const message = event.data as { type?: unknown; n?: unknown };
        if (message?.type === "up") resolve();
        if (message?.type === "counting" && typeof message.n === "number") {
          const resolveStart = counting.get(message.n);
          counting.delete(message.n);
          resolveStart?.();
        }
      };
    });
    send({ type: "ready" });
    for await (const chunk of D.stdin.readable) splitter.push(chunk);
    D.exit(0);
  })();
}
