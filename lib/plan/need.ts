/**
 * One Deno permission a run needs, and the `host:port` form net permissions
 * name an API by: the vocabulary that `permissions.ts` and each `*_needs.ts`
 * derivation share (kept apart from them so that they do not import each
 * other).
 *
 * @module
 */

/** One permission a run needs, and why. */
export interface Need {
  name: "read" | "write" | "env" | "net" | "run" | "sys";
  /** Path, variable, host:port (or `unix:` and a socket path), executable, or a sys API name. */
  value: string;
  why: string;
}

/** `host:port` of the model API. */
export function modelHost(baseUrl: string | null): string {
  const url = new URL(baseUrl ?? "https://api.openai.com/v1");
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}
