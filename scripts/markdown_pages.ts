/**
 * Markdown files cut into pages, as a documentation site serves them: the
 * realistic documents of `scripts/measure_search_output.ts` and of the test
 * that holds the `search` defaults to them
 * (`tests/tools/search_defaults_test.ts`).
 *
 * @module
 */

import type { Document } from "../lib/types.ts";

/** Sections are joined until a page holds at least this many characters. */
export const MIN_PAGE_CHARS = 2000;

/** Every `.md` file at `path` (a file, or a folder searched recursively), sorted. */
export async function markdownFiles(path: string): Promise<string[]> {
  const info = await Deno.stat(path);
  if (info.isFile) return path.endsWith(".md") ? [path] : [];
  const out: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    if (entry.name.startsWith(".")) continue;
    out.push(...await markdownFiles(`${path}/${entry.name}`));
  }
  return out.sort();
}

/**
 * A Markdown text's pages: its sections at level-2 headings (`## `),
 * consecutive ones joined until a page holds {@link MIN_PAGE_CHARS}.
 */
export function pagesOf(text: string): string[] {
  const pages: string[] = [];
  let current = "";
  for (const section of text.split(/\n(?=## )/)) {
    current = current ? `${current}\n${section}` : section;
    if (current.length >= MIN_PAGE_CHARS) {
      pages.push(current);
      current = "";
    }
  }
  if (current.trim()) pages.push(current);
  return pages;
}

/** The pages of every Markdown file under `paths`, as documents `FILE#N`, in id order. */
export async function markdownPages(paths: readonly string[]): Promise<Document[]> {
  const documents: Document[] = [];
  for (const path of paths) {
    for (const file of await markdownFiles(path)) {
      pagesOf(await Deno.readTextFile(file)).forEach((page, i) => {
        documents.push({ id: `${file}#${i}`, title: "", text: page, source: file });
      });
    }
  }
  return documents.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Three queries a page: its first heading's words and two 4-word windows of
 * its text, drawn with `rng` (seeded, so the queries repeat).
 */
export function pageQueries(documents: readonly Document[], rng: () => number): string[] {
  const queries: string[] = [];
  for (const doc of documents) {
    const heading = /^#+ (.+)$/m.exec(doc.text)?.[1];
    if (heading) queries.push(heading.slice(0, 1000));
    const words = doc.text.split(/\s+/).filter((w) => /[A-Za-z]{3,}/.test(w));
    for (let i = 0; i < 2 && words.length > 4; i++) {
      const at = Math.floor(rng() * (words.length - 4));
      queries.push(words.slice(at, at + 4).join(" "));
    }
  }
  return queries;
}
