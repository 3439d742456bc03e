/**
 * The path and file-URL functions ragbench uses, without Deno's Node
 * emulation at start-up.
 *
 * Importing `node:path` or `node:url` costs 6–10 ms of every run's start-up:
 * the first `node:` module loads the base of Deno's Node emulation (its
 * error classes and `util.inspect`), and `node:path`'s `resolve`/`relative`
 * reach `process.cwd()` for a relative path, which loads the `process`
 * emulation too (~10 ms more). On POSIX systems the functions here are
 * ragbench's own and answer exactly as `node:path`'s `posix` ones and
 * `node:url`'s do (a test compares them on thousands of generated paths);
 * relative paths are resolved from `Deno.cwd()`. On Windows, where drive
 * letters, UNC shares and both separators make the rules much longer, they
 * are `node:path`'s and `node:url`'s own, reached on first use through
 * `process.getBuiltinModule`.
 *
 * Import path helpers from here, never from `node:path` or `node:url` (a
 * test keeps it so for `lib/`, `tools/` and `systems/`).
 *
 * @module
 */

import type * as NodePath from "node:path";
import type * as NodeUrl from "node:url";
import { nodeProcess } from "./node_env.ts";

/** The functions of this module, one set per platform. */
export interface PathFunctions {
  /** The path separator: `/`, or `\` on Windows. */
  sep: string;
  join(...segments: string[]): string;
  dirname(path: string): string;
  basename(path: string, suffix?: string): string;
  extname(path: string): string;
  isAbsolute(path: string): boolean;
  /** The absolute path the segments name; relative ones start from `cwd()` (asked only then). */
  resolve(cwd: () => string, segments: readonly string[]): string;
  relative(cwd: () => string, from: string, to: string): string;
  fileURLToPath(url: string | URL): string;
  /** The file URL of `path` (a relative path from `cwd()`). */
  pathToFileURL(cwd: () => string, path: string): URL;
}

const SLASH = 47; // "/"

/** The segments of `path` once `.`, `..` and empty ones are applied; `..` above a root is dropped. */
function normalSegments(path: string, absolute: boolean): string[] {
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") out.push(segment);
    else if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (!absolute) out.push("..");
  }
  return out;
}

function posixNormalize(path: string): string {
  if (path === "") return ".";
  const absolute = path.charCodeAt(0) === SLASH;
  let body = normalSegments(path, absolute).join("/");
  if (body === "" && !absolute) body = ".";
  if (body !== "" && path.charCodeAt(path.length - 1) === SLASH) body += "/";
  return absolute ? `/${body}` : body;
}

function posixResolve(cwd: () => string, segments: readonly string[]): string {
  let path = "";
  for (let i = segments.length - 1; i >= -1 && path.charCodeAt(0) !== SLASH; i--) {
    const segment = i >= 0 ? segments[i] : cwd();
    if (segment !== "") path = path === "" ? segment : `${segment}/${path}`;
  }
  const absolute = path.charCodeAt(0) === SLASH;
  const body = normalSegments(path, absolute).join("/");
  return absolute ? `/${body}` : body || ".";
}

/** Where the last segment ends (trailing slashes left out); 0 for a path of slashes or "". */
function lastSegmentEnd(path: string): number {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === SLASH) end--;
  return end;
}

function posixBasename(path: string, suffix?: string): string {
  const end = lastSegmentEnd(path);
  const base = path.slice(path.lastIndexOf("/", end - 1) + 1, end);
  if (suffix === undefined || suffix === "") return base;
  // As node:path: a suffix that is the whole path leaves nothing, one that is the whole last
  // segment of a longer path leaves the segment.
  if (suffix === path) return "";
  if (suffix === base || !base.endsWith(suffix)) return base;
  return base.slice(0, base.length - suffix.length);
}

const FILE_NAME_ESCAPES: Record<string, string> = {
  "%": "%25",
  "\\": "%5C",
  "\n": "%0A",
  "\r": "%0D",
  "\t": "%09",
};

const POSIX: PathFunctions = {
  sep: "/",
  join: (...segments) => posixNormalize(segments.filter((s) => s !== "").join("/")),
  dirname(path) {
    if (path === "") return ".";
    const rooted = path.charCodeAt(0) === SLASH;
    const end = Math.max(lastSegmentEnd(path), 1);
    const slash = path.lastIndexOf("/", end - 1);
    if (slash < 1) return rooted ? "/" : ".";
    // "//x" keeps both slashes, as POSIX leaves the meaning of a leading "//" to the system.
    return rooted && slash === 1 ? "//" : path.slice(0, slash);
  },
  basename: posixBasename,
  extname(path) {
    const base = posixBasename(path);
    const dot = base.lastIndexOf(".");
    return dot <= 0 || base === ".." ? "" : base.slice(dot);
  },
  isAbsolute: (path) => path.charCodeAt(0) === SLASH,
  resolve: posixResolve,
  relative(cwd, from, to) {
    const a = posixResolve(cwd, [from]).split("/").filter((s) => s !== "");
    const b = posixResolve(cwd, [to]).split("/").filter((s) => s !== "");
    let common = 0;
    while (common < a.length && common < b.length && a[common] === b[common]) common++;
    return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/");
  },
  fileURLToPath(url) {
    const parsed = typeof url === "string" ? new URL(url) : url;
    if (parsed.protocol !== "file:") throw new TypeError(`The URL must be of scheme file: ${url}`);
    if (parsed.hostname !== "") {
      throw new TypeError(`File URL host must be "localhost" or empty on this system: ${url}`);
    }
    if (/%2f/i.test(parsed.pathname)) {
      throw new TypeError(`File URL path must not include encoded / characters: ${url}`);
    }
    return decodeURIComponent(parsed.pathname);
  },
  pathToFileURL(cwd, path) {
    let absolute = posixResolve(cwd, [path]);
    if (path.charCodeAt(path.length - 1) === SLASH && absolute !== "/") absolute += "/";
    const url = new URL("file://");
    // What the URL's path setter would leave as is (or drop) but a file name can hold.
    url.pathname = absolute.replace(/[%\\\n\r\t]/g, (c) => FILE_NAME_ESCAPES[c]);
    return url;
  },
};

/** `node:path`'s and `node:url`'s functions for Windows (the same shape as {@link POSIX}). */
export function windowsPathFunctions(
  path: typeof NodePath.win32,
  url: Pick<typeof NodeUrl, "fileURLToPath" | "pathToFileURL">,
): PathFunctions {
  return {
    sep: path.sep,
    join: path.join,
    dirname: path.dirname,
    basename: path.basename,
    extname: path.extname,
    isAbsolute: path.isAbsolute,
    resolve: (cwd, segments) =>
      segments.some(path.isAbsolute) ? path.resolve(...segments) : path.resolve(cwd(), ...segments),
    relative: (cwd, from, to) => path.relative(path.resolve(cwd(), from), path.resolve(cwd(), to)),
    fileURLToPath: (u) => url.fileURLToPath(u),
    pathToFileURL: (cwd, p) => url.pathToFileURL(path.isAbsolute(p) ? p : path.resolve(cwd(), p)),
  };
}

let windows: PathFunctions | undefined;

/** The functions for the platform ragbench runs on. */
function platform(): PathFunctions {
  if (Deno.build.os !== "windows") return POSIX;
  if (windows === undefined) {
    const process = nodeProcess();
    windows = windowsPathFunctions(
      process.getBuiltinModule("node:path").win32,
      process.getBuiltinModule("node:url"),
    );
  }
  return windows;
}

/** ragbench's own POSIX functions, for tests that compare them with `node:path.posix`. */
export const POSIX_PATHS: PathFunctions = POSIX;

/** The path separator of this platform. */
export const sep: string = Deno.build.os === "windows" ? "\\" : "/";

/** `path.join`: the segments joined by the separator, then normalised. */
export function join(...segments: string[]): string {
  return platform().join(...segments);
}

/** `path.dirname`: the path without its last segment. */
export function dirname(path: string): string {
  return platform().dirname(path);
}

/** `path.basename`: the last segment, without `suffix` when it ends with it. */
export function basename(path: string, suffix?: string): string {
  return platform().basename(path, suffix);
}

/** `path.extname`: the last segment's extension, from its last `.` ("" when it has none). */
export function extname(path: string): string {
  return platform().extname(path);
}

/** `path.isAbsolute`. */
export function isAbsolute(path: string): boolean {
  return platform().isAbsolute(path);
}

/** `path.resolve(...segments)`: the absolute path the segments name, from the working directory. */
export function resolvePath(...segments: string[]): string {
  return platform().resolve(() => Deno.cwd(), segments);
}

/** `path.relative(from, to)`: the path from `from` to `to`, either relative to the working directory. */
export function relativePath(from: string, to: string): string {
  return platform().relative(() => Deno.cwd(), from, to);
}

/** `url.fileURLToPath`: the path a `file:` URL names. */
export function fileURLToPath(url: string | URL): string {
  return platform().fileURLToPath(url);
}

/** `url.pathToFileURL`: the `file:` URL of a path (a relative one from the working directory). */
export function pathToFileURL(path: string): URL {
  return platform().pathToFileURL(() => Deno.cwd(), path);
}
