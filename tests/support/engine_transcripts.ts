/**
 * Transcripts of the `opensearch` and `elasticsearch` retrievers' exchanges
 * with their engines, and a loopback server that replays them.
 *
 * No OpenSearch or Elasticsearch server can run on the machines ragbench is
 * built on, so a transcript pairs each request exactly as the official
 * client sent it (method, path with query, body; captured from the pinned
 * client by `tests/fixtures/engines/record_transcripts.ts`) with a response
 * in the engine's documented format (status, headers, body), written by
 * hand in that script. The replay server answers a request with the
 * response of the first unused exchange whose request equals it (JSON and
 * NDJSON bodies compared as values), and answers anything else with a 599
 * and a note in `unmatched`, which the tests assert is empty: a client
 * upgrade that changes what is sent fails them.
 *
 * @module
 */

import { type Loopback, loopback, type Received } from "./loopback_server.ts";

/** One request and its response. */
export interface Exchange {
  request: { method: string; path: string; body: string | null };
  response: { status: number; headers: Record<string, string>; body: string | null };
}

/** A recorded scenario. */
export interface Transcript {
  engine: string;
  client: string;
  note: string;
  exchanges: Exchange[];
}

/** The folder of the transcripts. */
export const TRANSCRIPTS = new URL("../fixtures/engines/", import.meta.url);

/** Reads `<engine>/<scenario>.json`. */
export async function readTranscript(engine: string, scenario: string): Promise<Transcript> {
  return JSON.parse(
    await Deno.readTextFile(new URL(`${engine}/${scenario}.json`, TRANSCRIPTS)),
  ) as Transcript;
}

/** A server replaying `transcript`. */
export interface ReplayServer extends Loopback {
  /** Requests that matched no unused exchange. */
  unmatched: Received[];
  /** Exchanges no request used. */
  unused(): Exchange[];
}

/** Starts a loopback server that replays `transcript` (see the module docs). */
export function replayServer(transcript: Transcript): ReplayServer {
  const used = new Set<number>();
  const unmatched: Received[] = [];
  const server = loopback((req) => {
    const index = transcript.exchanges.findIndex((e, i) => !used.has(i) && sameRequest(e, req));
    if (index < 0) {
      unmatched.push(req);
      return new Response(JSON.stringify({ error: "no exchange of the transcript matches" }), {
        status: 599,
        headers: { "content-type": "application/json" },
      });
    }
    used.add(index);
    const { response } = transcript.exchanges[index];
    return new Response(response.body, { status: response.status, headers: response.headers });
  });
  return {
    ...server,
    unmatched,
    unused: () => transcript.exchanges.filter((_, i) => !used.has(i)),
  };
}

/** Whether `received` is the request of `exchange` (bodies compared as JSON or NDJSON values). */
export function sameRequest(exchange: Exchange, received: Received): boolean {
  const want = exchange.request;
  if (want.method !== received.method || want.path !== received.path) return false;
  return bodyValue(want.body ?? "") === bodyValue(received.body);
}

function bodyValue(text: string): string {
  if (text.trim() === "") return "";
  return text.split("\n").filter((line) => line.trim() !== "").map((line) => {
    try {
      return JSON.stringify(sortKeys(JSON.parse(line)));
    } catch {
      return line;
    }
  }).join("\n");
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
    });
  }
  return out;
}
