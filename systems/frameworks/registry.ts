/**
 * The agent frameworks ragbench can run, one entry each: the system type, the
 * packages (pinned exactly in `deno.json`, locked in `deno.lock`), the adapter
 * module that runs in the framework's own process, and the least permissions
 * that process needs (measured under Deno 2.9.6; see
 * docs/architecture.md "Framework systems"). Adding a framework is one
 * adapter file beside this one and one entry here.
 *
 * Nothing here imports a framework: adapters are named by URL and started as
 * processes, so a config that names no framework never loads one.
 *
 * @module
 */

/** One permission a framework's process is given, and why. */
export interface FrameworkPermission {
  /** The `deno run` flag, e.g. `--allow-sys=hostname`. */
  flag: string;
  why: string;
}

/** A framework ragbench runs as a system type. */
export interface FrameworkManifest {
  /** The system type, e.g. `ai_sdk`. */
  type: string;
  /** One line for `--help` and the README. */
  description: string;
  /** The npm packages the adapter imports, `name@version` as pinned. */
  packages: readonly string[];
  /** The adapter module, run as the process's main module. */
  adapter: URL;
  /** Its process's permissions (none beyond these; its environment is cleared). */
  permissions: readonly FrameworkPermission[];
  /** Variables set in its (cleared) environment: telemetry and tracing off. */
  env: Readonly<Record<string, string>>;
}

const LIST: FrameworkManifest[] = [
  {
    type: "ai_sdk",
    description: "Vercel AI SDK generateText agent (npm ai) over ragbench's model and tools.",
    packages: ["ai@7.0.173"],
    adapter: new URL("./ai_sdk.ts", import.meta.url),
    permissions: [{
      flag: "--allow-sys=hostname",
      why: "@vercel/oidc reads the host name when the AI SDK is imported",
    }],
    env: {},
  },
  {
    type: "langgraph",
    description: "LangChain createAgent (a LangGraph agent) over ragbench's model and tools.",
    packages: ["langchain@1.5.14", "@langchain/core@1.4.0"],
    adapter: new URL("./langgraph.ts", import.meta.url),
    permissions: [{
      flag: "--allow-sys=homedir",
      why: "langsmith builds its client (tracing stays off) on the first invoke",
    }],
    env: {},
  },
  {
    type: "openai_agents",
    description: "OpenAI Agents SDK Runner (@openai/agents-core) over ragbench's model and tools.",
    packages: ["@openai/agents-core@0.20.0"],
    adapter: new URL("./openai_agents.ts", import.meta.url),
    permissions: [{
      flag: "--allow-env",
      why: "the debug package lists every variable at import (its environment is cleared)",
    }],
    env: { OPENAI_AGENTS_DISABLE_TRACING: "1" },
  },
  {
    type: "mastra",
    description: "Mastra Agent (@mastra/core) over ragbench's model and tools.",
    packages: ["@mastra/core@1.71.0"],
    adapter: new URL("./mastra.ts", import.meta.url),
    permissions: [{
      flag: "--allow-env=" + [
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "MASTRA_DEV",
        "MASTRA_OFFLINE",
        "MASTRA_AUTO_REFRESH_PROVIDERS",
        "WS_NO_BUFFER_UTIL",
        "MASTRA_GATEWAY_API_KEY",
        "MASTRA_AGENT_THREAD_LEASE_TTL_MS",
        "MASTRA_AGENT_THREAD_LEASE_RENEW_INTERVAL_MS",
        "MASTRA_SUSPENDED_RUN_TTL_MS",
      ].join(","),
      why: "Mastra reads these when imported (its environment is cleared: all unset)",
    }],
    env: {},
  },
  {
    type: "llamaindex",
    description:
      "LlamaIndex.TS workflow agent (@llamaindex/workflow) over ragbench's model and tools.",
    packages: ["@llamaindex/workflow@1.1.25", "@llamaindex/core@0.6.23"],
    adapter: new URL("./llamaindex.ts", import.meta.url),
    permissions: [],
    env: {},
  },
];

/** Every framework, by system type. */
export const FRAMEWORKS: ReadonlyMap<string, FrameworkManifest> = new Map(
  LIST.map((m) => [m.type, m]),
);
