// deno-lint-ignore-file no-console
/**
 * An example MCP server with two read-only, stateless tools, for
 * `configs/mcp_example.yaml` and the tests: `convert_units` (length, mass,
 * temperature, volume) and `days_between` (calendar days between two dates).
 *
 * Run it on stdio (what a `server: {command: [...]}` entry does):
 *
 *     deno run examples/mcp_server.ts
 *
 * or as a Streamable HTTP server on 127.0.0.1 (for `server: {url: ...}`):
 *
 *     deno run --allow-net=127.0.0.1 examples/mcp_server.ts --http 8765
 *
 * On stdio it exits when its standard input closes, so it never outlives the
 * process that started it. Over HTTP each request gets a fresh stateless
 * server (no sessions), and it prints `listening on http://127.0.0.1:PORT/mcp`
 * once it accepts connections.
 *
 * @module
 */

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import process from "node:process";
import { z } from "zod";

/** Factors to the base unit of each dimension (metre, kilogram, litre). */
const LINEAR_UNITS = new Map<string, { dimension: string; factor: number }>([
  ["mm", { dimension: "length", factor: 0.001 }],
  ["cm", { dimension: "length", factor: 0.01 }],
  ["m", { dimension: "length", factor: 1 }],
  ["km", { dimension: "length", factor: 1000 }],
  ["in", { dimension: "length", factor: 0.0254 }],
  ["ft", { dimension: "length", factor: 0.3048 }],
  ["mi", { dimension: "length", factor: 1609.344 }],
  ["g", { dimension: "mass", factor: 0.001 }],
  ["kg", { dimension: "mass", factor: 1 }],
  ["lb", { dimension: "mass", factor: 0.45359237 }],
  ["oz", { dimension: "mass", factor: 0.028349523125 }],
  ["ml", { dimension: "volume", factor: 0.001 }],
  ["l", { dimension: "volume", factor: 1 }],
  ["gal", { dimension: "volume", factor: 3.785411784 }],
]);
const TEMPERATURES = new Set(["c", "f", "k"]);

/** Converts `value` from one unit to another; throws a RangeError naming the problem. */
export function convertUnits(value: number, from: string, to: string): number {
  const f = from.trim().toLowerCase();
  const t = to.trim().toLowerCase();
  if (TEMPERATURES.has(f) || TEMPERATURES.has(t)) {
    if (!TEMPERATURES.has(f) || !TEMPERATURES.has(t)) {
      throw new RangeError(`cannot convert between "${from}" and "${to}"`);
    }
    const kelvin = f === "c" ? value + 273.15 : f === "f" ? (value - 32) * 5 / 9 + 273.15 : value;
    return t === "c" ? kelvin - 273.15 : t === "f" ? (kelvin - 273.15) * 9 / 5 + 32 : kelvin;
  }
  const a = LINEAR_UNITS.get(f);
  const b = LINEAR_UNITS.get(t);
  if (!a) throw new RangeError(`unknown unit "${from}"`);
  if (!b) throw new RangeError(`unknown unit "${to}"`);
  if (a.dimension !== b.dimension) {
    throw new RangeError(`cannot convert ${a.dimension} ("${from}") to ${b.dimension} ("${to}")`);
  }
  return value * a.factor / b.factor;
}

/** Calendar days from `start` to `end` (negative when `end` is earlier). */
export function daysBetween(start: string, end: string): number {
  const a = Temporal.PlainDate.from(start, { overflow: "reject" });
  const b = Temporal.PlainDate.from(end, { overflow: "reject" });
  return a.until(b, { largestUnit: "days" }).days;
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function failure(message: string) {
  return { content: [{ type: "text" as const, text: message }], isError: true };
}

/** A server with both tools registered. */
export function createExampleServer(): McpServer {
  const server = new McpServer({ name: "ragbench-example", version: "1.0.0" });
  server.registerTool("convert_units", {
    description:
      "Convert a quantity between units of length (mm, cm, m, km, in, ft, mi), mass (g, kg, lb, oz), " +
      "volume (ml, l, gal) or temperature (C, F, K).",
    inputSchema: {
      value: z.number().describe("The quantity to convert"),
      from: z.string().max(10).describe("Unit of the value, e.g. km"),
      to: z.string().max(10).describe("Unit to convert to, e.g. mi"),
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
  }, ({ value, from, to }: { value: number; from: string; to: string }) => {
    try {
      const result = round(convertUnits(value, from, to));
      return { content: [{ type: "text", text: `${value} ${from} = ${result} ${to}` }] };
    } catch (error) {
      return failure(`convert_units: ${(error as Error).message}`);
    }
  });
  server.registerTool("days_between", {
    description: "Number of calendar days from one date to another (dates as YYYY-MM-DD).",
    inputSchema: {
      start: z.string().max(10).describe("First date, YYYY-MM-DD"),
      end: z.string().max(10).describe("Second date, YYYY-MM-DD"),
    },
    annotations: { readOnlyHint: true, idempotentHint: true },
  }, ({ start, end }: { start: string; end: string }) => {
    try {
      return { content: [{ type: "text", text: String(daysBetween(start, end)) }] };
    } catch {
      return failure(`days_between: "${start}" and "${end}" must be dates written YYYY-MM-DD`);
    }
  });
  return server;
}

async function serveStdio(): Promise<void> {
  const server = createExampleServer();
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  await server.connect(transport);
  // The SDK's stdio transport does not notice end of input by itself.
  process.stdin.on("end", () => void server.close());
  await closed;
}

function serveHttp(port: number): Deno.HttpServer {
  return Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}/mcp`),
  }, async (request) => {
    if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
    const server = createExampleServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    return await transport.handleRequest(request);
  });
}

if (import.meta.main) {
  const flag = Deno.args.indexOf("--http");
  if (flag >= 0) {
    const port = Number(Deno.args[flag + 1] ?? "0");
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      console.error("--http needs a port number (0 picks a free one)");
      Deno.exit(2);
    }
    serveHttp(port);
  } else {
    await serveStdio();
  }
}
