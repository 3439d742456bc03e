/**
 * Listing and reading the files of a corpus folder, and the report of what
 * was left out.
 *
 * Rules:
 * - Names starting with `.` are left out silently (hidden files, `.git`).
 * - A symbolic link is followed when its target, resolved fully
 *   (`realPath`), stays inside the corpus folder; it then counts under the
 *   link's own path. A link that points outside the folder, a broken link and
 *   a link to a folder that contains it (a loop) are skipped and reported.
 * - A file whose first 8 KB hold a NUL byte is binary: skipped and reported.
 * - A text file that is not valid UTF-8 is refused with its byte offset.
 *
 * @module
 */

import { join, relativePath, sep } from "../util/paths.ts";
import { RagbenchError } from "../errors.ts";
import { describeFsError } from "../util/fs.ts";
import { decodeUtf8, describeTextProblem, looksBinary } from "../util/utf8.ts";

/** Why a file of a corpus folder is not in the corpus. */
export type SkipReason =
  | "not_a_document"
  | "binary"
  | "link_outside"
  | "link_broken"
  | "link_loop"
  | "not_a_file"
  | "unreadable";

/** A file or link of a corpus folder that was left out, and why. */
export interface SkippedFile {
  /** Path relative to the corpus folder, `/`-separated. */
  path: string;
  reason: SkipReason;
  /** For a link: where it points (as resolved, or as written when broken). */
  target?: string;
  /** For an unreadable file (`on_error: skip`): why, e.g. `it is empty`. */
  detail?: string;
}

/** Most entries (files, folders, links) walked in one corpus folder. */
export const MAX_ENTRIES = 2_000_000;
/** Names listed per kind of skip in {@link describeSkipped}. */
const NAMES_LISTED = 10;

/** A file found in a corpus folder: its full path and its path relative to the folder. */
export interface CorpusFile {
  full: string;
  rel: string;
}

/**
 * Lists the files of `root` in path order, following symbolic links that stay
 * inside it; every link not followed is added to `skipped`.
 *
 * @throws {RagbenchError} (code "data") when a folder cannot be read or the
 *   folder holds more than {@link MAX_ENTRIES} entries.
 */
export async function listCorpusFiles(
  root: string,
  skipped: SkippedFile[],
): Promise<CorpusFile[]> {
  const out: CorpusFile[] = [];
  const realRoot = await Deno.realPath(root).catch((error) => {
    throw dataError(`Cannot load corpus "${root}": ${describeFsError(error)}.`, error);
  });
  let walked = 0;
  const inside = (real: string) => real === realRoot || real.startsWith(realRoot + sep);
  const relOf = (full: string) => relativePath(root, full).split(sep).join("/");

  // `ancestors`: real paths of the folders being walked, so a link back to one is a loop.
  const walk = async (dir: string, ancestors: ReadonlySet<string>) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch (error) {
      throw dataError(`Cannot load corpus "${dir}": ${describeFsError(error)}.`, error);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      if (++walked > MAX_ENTRIES) {
        throw dataError(
          `Cannot load corpus "${root}": it holds more than ${MAX_ENTRIES} files and folders ` +
            "(counting those reached through links); point the config at a smaller folder.",
        );
      }
      const full = join(dir, entry.name);
      if (entry.isDirectory) {
        const real = Deno.realPathSync(full);
        await walk(full, new Set([...ancestors, real]));
      } else if (entry.isFile) {
        out.push({ full, rel: relOf(full) });
      } else if (entry.isSymlink) {
        const followed = await followLink(full, relOf(full), inside);
        if ("reason" in followed) {
          skipped.push(followed);
        } else if (followed.info.isDirectory) {
          if (ancestors.has(followed.real)) {
            skipped.push({ path: relOf(full), reason: "link_loop", target: followed.real });
          } else {
            await walk(full, new Set([...ancestors, followed.real]));
          }
        } else if (followed.info.isFile) {
          out.push({ full, rel: relOf(full) });
        } else {
          skipped.push({ path: relOf(full), reason: "not_a_file", target: followed.real });
        }
      } else {
        skipped.push({ path: relOf(full), reason: "not_a_file" });
      }
    }
  };
  await walk(root, new Set([realRoot]));
  return out;
}

/** Resolves a link; its target is only looked at (stat) when `inside` accepts it. */
async function followLink(
  full: string,
  rel: string,
  inside: (real: string) => boolean,
): Promise<{ real: string; info: Deno.FileInfo } | SkippedFile> {
  try {
    const real = Deno.realPathSync(full);
    if (!inside(real)) return { path: rel, reason: "link_outside", target: real };
    return { real, info: Deno.statSync(real) };
  } catch (error) {
    const written = await Deno.readLink(full).catch(() => undefined);
    // ELOOP: the link chain never ends.
    const looped = error instanceof Error && /loop|too many levels/i.test(error.message);
    if (error instanceof Deno.errors.NotFound || looped) {
      return { path: rel, reason: looped ? "link_loop" : "link_broken", target: written };
    }
    // No permission to resolve it: it leads outside what the run may read.
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      return { path: rel, reason: "link_outside", target: written };
    }
    throw dataError(`Cannot load corpus file "${full}": ${describeFsError(error)}.`, error);
  }
}

/**
 * The text of a corpus file, or `binary` when it holds a NUL byte in its
 * first 8 KB. Read synchronously: an async read costs a thread wake-up,
 * which in a folder of many small documents is most of the time (20,000
 * files: ~1.3 s async, ~0.35 s so).
 *
 * @throws {RagbenchError} (code "data") when it cannot be read or is not UTF-8.
 */
// deno-lint-ignore require-await
export async function readCorpusText(
  path: string,
  tooLongAdvice = "split it into smaller documents",
): Promise<string | { binary: true }> {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (error) {
    throw dataError(`Cannot read corpus file "${path}": ${describeFsError(error)}.`, error);
  }
  if (looksBinary(bytes)) return { binary: true };
  const decoded = decodeUtf8(bytes);
  if ("text" in decoded) return decoded.text;
  const problem = "tooLong" in decoded
    ? describeTextProblem(decoded, tooLongAdvice)
    : `${describeTextProblem(decoded, tooLongAdvice)}, or remove it from the corpus folder`;
  throw dataError(`Cannot read corpus file "${path}": ${problem}.`);
}

/**
 * Lines for the run log saying what a corpus folder left out: one line per
 * kind, with up to ten names each.
 */
export function describeSkipped(skipped: readonly SkippedFile[]): string[] {
  const groups: Array<[SkipReason[], (n: number) => string]> = [
    [
      ["not_a_document"],
      (n) => `${plural(n, "file")} that ${n === 1 ? "is" : "are"} neither documents nor tables`,
    ],
    [["binary"], (n) => `${plural(n, "binary file")} (a NUL byte in the first 8 KB)`],
    [
      ["link_outside", "link_broken", "link_loop"],
      (n) => `${plural(n, "symbolic link")} not followed`,
    ],
    [
      ["not_a_file"],
      (n) => `${plural(n, "entry", "entries")} that ${n === 1 ? "is" : "are"} not regular files`,
    ],
    [["unreadable"], (n) => `${plural(n, "unreadable file")} (on_error: skip)`],
  ];
  const lines: string[] = [];
  for (const [reasons, what] of groups) {
    const items = skipped.filter((s) => reasons.includes(s.reason));
    if (items.length === 0) continue;
    const names = items.slice(0, NAMES_LISTED).map(describeOne).join(", ");
    const more = items.length > NAMES_LISTED ? `, and ${items.length - NAMES_LISTED} more` : "";
    lines.push(`corpus: skipped ${what(items.length)}: ${names}${more}`);
  }
  return lines;
}

function describeOne(item: SkippedFile): string {
  const to = item.target === undefined ? "" : ` -> ${item.target}`;
  switch (item.reason) {
    case "link_outside":
      return `${item.path}${to} (outside the corpus folder)`;
    case "link_broken":
      return `${item.path}${to} (broken)`;
    case "link_loop":
      return `${item.path}${to} (a loop)`;
    case "unreadable":
      return `${item.path} (${item.detail ?? "unreadable"})`;
    default:
      return item.path;
  }
}

function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

function dataError(message: string, cause?: unknown): RagbenchError {
  return new RagbenchError("data", message, cause === undefined ? undefined : { cause });
}

/**
 * Whether the corpus folder `root` holds a file whose name ends in `ext`
 * (lower case, e.g. `.pdf`), looking as {@link listCorpusFiles} does: names
 * starting with `.` are not looked into, links to folders are followed once.
 * Names only: no file is read. False when `root` is not a readable folder.
 */
export function folderHolds(root: string, ext: string): boolean {
  let walked = 0;
  const seen = new Set<string>();
  const walk = (dir: string): boolean => {
    let real: string;
    let entries: Deno.DirEntry[];
    try {
      real = Deno.realPathSync(dir);
      if (seen.has(real)) return false;
      seen.add(real);
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return false;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".") || ++walked > MAX_ENTRIES) continue;
      if (!entry.isDirectory && entry.name.toLowerCase().endsWith(ext)) return true;
      if (entry.isDirectory || entry.isSymlink) {
        if (walk(join(dir, entry.name))) return true;
      }
    }
    return false;
  };
  return walk(root);
}
