/**
 * The Deno permissions `ragbench init DOCS --dir DIR` needs: read of the
 * documents, read and write of the folder it writes the benchmark into
 * (it checks that no file would be overwritten, then `validate` reads what
 * it wrote), and the deno executable when the documents hold a PDF (read
 * in a subprocess).
 *
 * @module
 */

import { folderHolds } from "../data/corpus_files.ts";
import type { Need } from "./need.ts";

/** The documents folder `init` reads when it is given none. */
export const INIT_DEFAULT_DOCS = "docs";

/** What `init` needs for the documents folder `docs` and the output folder `dir`. */
export function initNeeds(docs: string, dir: string): Need[] {
  const needs: Need[] = [
    { name: "read", value: docs, why: "the documents" },
    { name: "read", value: dir, why: "the benchmark folder (nothing is overwritten)" },
    { name: "write", value: dir, why: "the benchmark folder" },
  ];
  if (folderHolds(docs, ".pdf")) {
    needs.push({
      name: "run",
      value: Deno.execPath(),
      why: "reading the documents' PDF files (deno run, no permissions)",
    });
  }
  return needs;
}
