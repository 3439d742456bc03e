/**
 * The `prompts:` of one system entry, after its type's schema accepted the
 * shape (`lib/prompts/prompt_set.ts`): each `{file: PATH}` read (relative to
 * the config; UTF-8 text, not a folder), each text at most
 * `MAX_PROMPT_CHARS` characters, and each `{{placeholder}}` one its slot
 * declares. Every problem is reported with its position; a file is read
 * only when its size is plausible, so a huge one is refused unread.
 *
 * @module
 */

import type { ConfigIssue } from "../errors.ts";
import { MAX_PROMPT_CHARS, placeholdersIn } from "../prompts/template.ts";
import type { PromptSet } from "../prompts/prompt_set.ts";
import { closestMatch } from "../util/did_you_mean.ts";
import { describeFsError } from "../util/fs.ts";
import { dirname, isAbsolute, resolvePath } from "../util/paths.ts";
import { BINARY_SNIFF_BYTES, decodeUtf8, describeTextProblem } from "../util/utf8.ts";
import type { ValuePath, YamlSource } from "../util/yaml_source.ts";

/** The prompts of a system as loading resolved them. */
export interface CheckedPrompts {
  /** Each slot the config sets, with its text (a file's read in). */
  texts: Record<string, string>;
  /** The file of each slot set from one (absolute path). */
  files: Record<string, string>;
}

/** Bytes of a prompt file read at most: 4 a character is UTF-8's most. */
const MAX_PROMPT_FILE_BYTES = MAX_PROMPT_CHARS * 4;

/**
 * Checks `given` (the entry's validated `prompts:`) against `set`; null when
 * a problem was added to `problems`.
 */
export function checkPrompts(
  given: Readonly<Record<string, unknown>>,
  set: PromptSet,
  at: ValuePath,
  context: { source: YamlSource; configPath: string; problems: ConfigIssue[] },
): CheckedPrompts | null {
  const { source, problems } = context;
  const before = problems.length;
  const texts: Record<string, string> = {};
  const files: Record<string, string> = {};
  for (const [slot, value] of Object.entries(given)) {
    const declared = set.slots.get(slot);
    if (declared === undefined || value === undefined) continue;
    const where = [...at, slot];
    let text: string | null;
    if (typeof value === "string") text = value;
    else {
      const file = (value as { file: string }).file;
      const path = isAbsolute(file) ? file : resolvePath(dirname(context.configPath), file);
      text = readPromptFile(path, { file, slot }, source.positionOf([...where, "file"]), problems);
      if (text !== null) files[slot] = path;
    }
    if (text === null) continue;
    if (text.length > MAX_PROMPT_CHARS) {
      problems.push({
        position: source.positionOf(where),
        message: `prompt "${slot}" is ${text.length.toLocaleString("en-US")} characters long; ` +
          `a prompt may have at most ${MAX_PROMPT_CHARS.toLocaleString("en-US")}`,
        hint: "shorten it (the model reads it on every call)",
      });
      continue;
    }
    const unknown = new Set<string>();
    for (const use of placeholdersIn(text)) {
      if (declared.placeholders.includes(use.name) || unknown.has(use.name)) continue;
      unknown.add(use.name);
      const known = declared.placeholders.map((p) => `{{${p}}}`);
      const close = closestMatch(use.name, declared.placeholders);
      problems.push({
        position: source.positionOf(where),
        message: `prompt "${slot}" uses the unknown placeholder {{${use.name}}}`,
        hint: known.length === 0
          ? `this prompt takes no placeholders; write the text itself`
          : close !== undefined
          ? `did you mean {{${close}}}? Its placeholders: ${known.join(", ")}`
          : `its placeholders: ${known.join(", ")}`,
      });
    }
    texts[slot] = text;
  }
  return problems.length === before ? { texts, files } : null;
}

/** A prompt file's text, or null with a problem added. */
function readPromptFile(
  path: string,
  named: { file: string; slot: string },
  position: ReturnType<YamlSource["positionOf"]>,
  problems: ConfigIssue[],
): string | null {
  const fail = (why: string, hint?: string) => {
    problems.push({
      position,
      message: `cannot read the file "${named.file}" of prompt "${named.slot}": ${why}`,
      ...(hint ? { hint } : {}),
    });
    return null;
  };
  let size: number;
  try {
    const info = Deno.statSync(path);
    if (info.isDirectory) return fail("it is a folder, not a file");
    size = info.size;
  } catch (error) {
    return fail(
      describeFsError(error),
      error instanceof Deno.errors.NotFound
        ? `looked for at ${path} (relative to the config's folder)`
        : undefined,
    );
  }
  if (size > MAX_PROMPT_FILE_BYTES) {
    return fail(
      `it is ${size.toLocaleString("en-US")} bytes; a prompt may have at most ${
        MAX_PROMPT_CHARS.toLocaleString("en-US")
      } characters`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch (error) {
    return fail(describeFsError(error));
  }
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    return fail("it is a binary file, not text");
  }
  const decoded = decodeUtf8(bytes);
  if (!("text" in decoded)) return fail(describeTextProblem(decoded, "shorten it"));
  if (decoded.text.trim() === "") return fail("it is empty");
  return decoded.text;
}
