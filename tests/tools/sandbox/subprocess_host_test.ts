import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { RagbenchError } from "../../../lib/errors.ts";
import { GENERIC_FAILURE, PERMISSION_FAILURE } from "../../../tools/invoke.ts";
import { type CustomToolHost, startCustomTool } from "../../../tools/sandbox/subprocess_host.ts";
import { childArgs } from "../../../tools/sandbox/tool_command.ts";
import {
  childEnv,
  isDenoExecutable,
  PASSED_ENV,
  PASSED_NETWORK_ENV,
} from "../../../tools/sandbox/child_env.ts";
import { createToolbox } from "../../../tools/toolbox.ts";
import type { SideEffects } from "../../../lib/types.ts";
import { corpusOf } from "../../support/tool_context.ts";
import { waitUntil } from "../../support/wait.ts";
import { toolProcesses } from "../../support/probe_host.ts";

const PROBES = fileURLToPath(new URL("../../fixtures/tools/probe_tools.ts", import.meta.url));
const CORPUS = corpusOf([{ id: "a", text: "alpha" }]);
const signal = new AbortController().signal;

/** Starts the probe tool `name` (exported in camelCase from the probe module). */
async function start(
  name: string,
  options: { sideEffects?: SideEffects; maxProcesses?: number; description?: string } = {},
): Promise<CustomToolHost> {
  return await startCustomTool({
    name,
    module: PROBES,
    exportName: name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
    sideEffects: options.sideEffects ?? "none",
    ...(options.description ? { description: options.description } : {}),
  }, { corpus: CORPUS, now: "2026-01-01", maxProcesses: options.maxProcesses ?? 2 });
}

function session(host: CustomToolHost, name: string, key = "q", timeoutMs = 5000) {
  return createToolbox([{
    name,
    description: host.info.description,
    sideEffects: "none",
    parameters: host.info.parameters,
    options: {},
    timeoutMs,
    host,
  }], { max_output_chars: 4000 }).session(key);
}

Deno.test("custom tool: its description and schema come from its module; the config may override the description", async () => {
  const host = await start("shout");
  try {
    assert.equal(host.info.description, "Upper-case a text.");
    assert.deepEqual(host.info.parameters, {
      type: "object",
      properties: { text: { type: "string", description: "Text to upper-case" } },
      required: ["text"],
      additionalProperties: false,
    });
    const { result } = await session(host, "shout").execute("shout", '{"text": "hi"}', signal);
    assert.equal(result.output, "HI");
  } finally {
    await host.close();
  }
  const renamed = await start("shout", { description: "Shout it." });
  await renamed.close();
  assert.equal(renamed.info.description, "Shout it.");
});

Deno.test("custom tool: state is kept per question across calls", async () => {
  const host = await start("shout");
  try {
    const a = session(host, "shout", "a");
    const b = session(host, "shout", "b");
    const calls = async (s: typeof a) =>
      ((await s.execute("shout", '{"text": "x"}', signal)).result.data as { calls: number }).calls;
    assert.deepEqual([await calls(a), await calls(b), await calls(a), await calls(b)], [
      1,
      1,
      2,
      2,
    ]);
    a.close();
    b.close();
  } finally {
    await host.close();
  }
});

const failures: Array<{ tool: string; kind: string; message: string; detail?: RegExp }> = [
  {
    tool: "explode",
    kind: "execution",
    message: GENERIC_FAILURE,
    detail: /^Error: database at 10\.0\.0\.7 rejected password hunter2$/,
  },
  {
    tool: "nothing",
    kind: "execution",
    message:
      "The tool returned a value that cannot be shown (is undefined (return a string or a JSON value)).",
  },
  {
    tool: "cyclic",
    kind: "execution",
    message: "The tool returned a value that cannot be shown (is cyclic).",
  },
  {
    tool: "read_file",
    kind: "permission",
    message: PERMISSION_FAILURE,
    detail: /^NotCapable: Requires read access to/,
  },
  {
    tool: "fetch_url",
    kind: "permission",
    message: PERMISSION_FAILURE,
    detail: /^NotCapable: Requires net access to "127\.0\.0\.1:8"/,
  },
  {
    tool: "read_env",
    kind: "permission",
    message: PERMISSION_FAILURE,
    detail: /^NotCapable: Requires env access/,
  },
];

for (const f of failures) {
  Deno.test(`custom tool "${f.tool}" with side_effects none gives a ${f.kind} error the model can read`, async () => {
    const host = await start(f.tool);
    try {
      const args = f.tool === "read_file"
        ? { path: PROBES }
        : f.tool === "fetch_url"
        ? { url: "http://127.0.0.1:8/" }
        : {};
      const { result } = await session(host, f.tool).execute(f.tool, JSON.stringify(args), signal);
      assert.equal(result.error?.kind, f.kind, JSON.stringify(result));
      assert.equal(result.error?.message, f.message);
      if (f.detail) assert.match(result.error?.detail ?? "", f.detail);
      assert.ok(!result.error!.message.includes("10.0.0.7"), "no host or secret reaches the model");
    } finally {
      await host.close();
    }
  });
}

Deno.test("custom tool: printing to stdout does not corrupt the call protocol", async () => {
  const host = await start("chatty");
  try {
    const { result } = await session(host, "chatty").execute("chatty", "{}", signal);
    assert.equal(result.output, "fine");
  } finally {
    await host.close();
  }
});

Deno.test("custom tool with side_effects filesystem may read the working folder", async () => {
  const host = await start("read_file", { sideEffects: "filesystem" });
  try {
    const path = `${Deno.cwd()}/deno.json`;
    const { result } = await session(host, "read_file").execute(
      "read_file",
      JSON.stringify({ path }),
      signal,
    );
    assert.equal(result.error, null, JSON.stringify(result.error));
    assert.match(result.output, /"imports"/);
  } finally {
    await host.close();
  }
});

Deno.test("custom tool with side_effects network may reach the network", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("pong"),
  );
  const host = await start("fetch_url", { sideEffects: "network" });
  try {
    const { result } = await session(host, "fetch_url").execute(
      "fetch_url",
      JSON.stringify({ url: `http://127.0.0.1:${server.addr.port}/` }),
      signal,
    );
    assert.equal(result.output, "pong", JSON.stringify(result));
  } finally {
    await host.close();
  }
});

Deno.test("custom tool spinning forever: timeout error at its limit, and its CPU is reclaimed", async () => {
  const host = await start("spin");
  try {
    const s = session(host, "spin", "q", 300);
    // The tool never returns: only its 0.3 s limit can end the call.
    const { result } = await s.execute("spin", "{}", signal);
    assert.equal(result.error?.kind, "timeout");
    // The spinning process is gone, and nothing of this process burns CPU for it.
    // SIGKILL is sent at the timeout; on a loaded machine the kernel may take a few hundred ms
    // to tear the process down (it also has a watchdog thread now).
    await waitUntil(() => spinningProcesses().length === 0);
    assert.deepEqual(spinningProcesses(), [], "the tool's process was killed");
    const before = process.cpuUsage();
    const wallStart = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000;
    const wallMs = performance.now() - wallStart;
    assert.ok(cpuMs < wallMs * 0.2, `used ${cpuMs} ms of CPU in ${wallMs} ms after the timeout`);
    // The question's next call gets a fresh process.
    const again = await s.execute("spin", "{}", signal);
    assert.equal(again.result.error?.kind, "timeout");
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a module that cannot be used fails to load with a clear message", async () => {
  const cases: Array<[string, RegExp]> = [
    ["missing", /it has no export named "missing" \(it exports: .*shout.*\)/],
    ["notATool", /export "notATool" is not a valid tool: Tool name "undefined" is not valid/],
    ["undescribed", /parameter "x" needs a description for the model — add \.describe\("\.\.\."\)/],
  ];
  for (const [exportName, message] of cases) {
    const error = await start(exportName).then(() => null, (e) => e);
    assert.ok(error instanceof RagbenchError, String(error));
    assert.match(error.message, /^Cannot load custom tool ".*" from ".*probe_tools\.ts#.*": /);
    assert.match(error.message, message);
  }
  const missingFile = await startCustomTool(
    { name: "x", module: "/nonexistent/tool.ts", exportName: "x", sideEffects: "none" },
    { corpus: CORPUS, now: "2026-01-01", maxProcesses: 1 },
  ).then(() => null, (e) => e);
  assert.ok(missingFile instanceof RagbenchError);
  assert.match(
    missingFile.message,
    /its process exited: error: Module not found "file:\/\/\/nonexistent\/tool\.ts"\.$/,
  );
});

Deno.test("a custom tool's process gets only the flags its side effects need", () => {
  const spec = { name: "t", module: "/work/tools/t.ts", exportName: "t" };
  const flags = (sideEffects: SideEffects) =>
    childArgs({ ...spec, sideEffects }).filter((a) => a.startsWith("--allow"));
  const cwd = Deno.cwd();
  assert.deepEqual(flags("none"), []);
  assert.deepEqual(flags("filesystem"), [`--allow-read=${cwd}`, `--allow-write=${cwd}`]);
  assert.deepEqual(flags("network"), ["--allow-net"]);
  const args = childArgs({ ...spec, sideEffects: "none" });
  for (
    const flag of ["--no-prompt", "--cached-only", "--no-remote", "--preload=/work/tools/t.ts"]
  ) {
    assert.ok(args.includes(flag), flag);
  }
  assert.deepEqual(args.slice(-5), ["__tool-host", "file:///work/tools/t.ts", "t", "none", "t"]);
});

Deno.test("the deno CLI is told apart from a compiled ragbench binary", () => {
  assert.equal(isDenoExecutable("/usr/local/bin/deno"), true);
  assert.equal(isDenoExecutable("C:\\deno\\deno.exe"), true);
  assert.equal(isDenoExecutable("/opt/ragbench/ragbench"), false);
});

/** Pids of tool processes running the probe module's spin tool. */
function spinningProcesses(): number[] {
  return toolProcesses("probe_tools.ts spin none");
}

Deno.test("custom tool: its module's top-level code already runs without permissions", async () => {
  const host = await startCustomTool({
    name: "report",
    module: fileURLToPath(new URL("../../fixtures/tools/toplevel_read.ts", import.meta.url)),
    exportName: "report",
    sideEffects: "none",
  }, { corpus: CORPUS, now: "2026-01-01", maxProcesses: 1 });
  try {
    const { result } = await session(host, "report").execute("report", "{}", signal);
    assert.equal(result.output, "NotCapable");
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: cannot fetch code at run time (no remote, cached only)", async () => {
  const host = await start("fetch_code");
  try {
    for (
      const specifier of [
        "https://deno.land/x/nothing/mod.ts",
        "npm:ragbench-no-such-package@1.0.0",
      ]
    ) {
      const { result } = await session(host, "fetch_code").execute(
        "fetch_code",
        JSON.stringify({ specifier }),
        signal,
      );
      assert.ok(
        result.error !== null && result.output === "",
        `${specifier}: ${JSON.stringify(result)}`,
      );
    }
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a forged result line is an execution error, never a throw", async () => {
  const host = await start("spoof");
  try {
    const { result } = await session(host, "spoof").execute("spoof", "{}", signal);
    assert.equal(result.error?.kind, "execution");
    assert.equal(
      result.error?.detail,
      "its process wrote a line to stdout that is not its reply (a tool must not write to stdout)",
    );
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: after a timeout and retries, other questions still get a process", async () => {
  const host = await start("sometimes_hang", { maxProcesses: 1 });
  try {
    const stuck = session(host, "sometimes_hang", "stuck", 200);
    for (let i = 0; i < 3; i++) {
      const { result } = await stuck.execute("sometimes_hang", '{"hang": true}', signal);
      assert.equal(result.error?.kind, "timeout", JSON.stringify(result));
    }
    stuck.close();
    const other = session(host, "sometimes_hang", "other", 2000);
    const { result } = await other.execute("sometimes_hang", '{"hang": false}', signal);
    assert.equal(result.output, "answered", JSON.stringify(result));
    other.close();
  } finally {
    await host.close();
  }
});

Deno.test("custom tool: a question waiting for a busy process gives up at its own timeout", async () => {
  const host = await start("sometimes_hang", { maxProcesses: 1 });
  try {
    const busy = session(host, "sometimes_hang", "busy", 1500);
    const waiting = session(host, "sometimes_hang", "waiting", 200);
    const first = busy.execute("sometimes_hang", '{"hang": true}', signal);
    const second = await waiting.execute("sometimes_hang", '{"hang": false}', signal);
    assert.equal(second.result.error?.kind, "timeout");
    await first;
    busy.close();
    waiting.close();
    const after = session(host, "sometimes_hang", "after", 2000);
    assert.equal(
      (await after.execute("sometimes_hang", '{"hang": false}', signal)).result.output,
      "answered",
    );
    after.close();
  } finally {
    await host.close();
  }
});

Deno.test("a custom tool's environment holds only Deno's cache and TLS settings (and proxies for network tools)", () => {
  const names = [...PASSED_ENV, ...PASSED_NETWORK_ENV, "RAGBENCH_SECRET"];
  const saved = new Map(names.map((k) => [k, Deno.env.get(k)]));
  try {
    for (const name of names) Deno.env.delete(name);
    Deno.env.set("SSL_CERT_FILE", "/etc/certs.pem");
    Deno.env.set("HTTPS_PROXY", "http://proxy:3128");
    Deno.env.set("RAGBENCH_SECRET", "hunter2");
    assert.deepEqual(childEnv("none"), { NO_COLOR: "1", SSL_CERT_FILE: "/etc/certs.pem" });
    assert.deepEqual(childEnv("network"), {
      NO_COLOR: "1",
      SSL_CERT_FILE: "/etc/certs.pem",
      HTTPS_PROXY: "http://proxy:3128",
    });
  } finally {
    for (const [k, v] of saved) v === undefined ? Deno.env.delete(k) : Deno.env.set(k, v);
  }
});
