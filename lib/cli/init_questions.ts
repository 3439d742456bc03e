/**
 * The questions file `ragbench init` writes: one example question for each
 * check type, each made from a sentence of the user's own documents and
 * naming that document as its evidence, each with a comment saying what
 * its check does. They are real questions (a fill-in-the-blank over a
 * sentence the corpus holds), so the file validates and runs as written,
 * and a first `--mock` run ranks the retrievers on the user's documents;
 * the user replaces them with their own.
 *
 * A sentence is taken from a document's first {@link SCAN_CHARS}
 * characters: one of 5 to 40 words and at most {@link MAX_SENTENCE_CHARS}
 * characters. A number example blanks a number of it; a word example blanks
 * its longest word of at least 5 letters. Documents are used in id order,
 * spread over the corpus, so a folder of many documents gets examples from
 * many of them. An example that no document can give (no sentence with a
 * number, say) is written commented out, with a placeholder to fill in.
 *
 * @module
 */

import type { Corpus, Document } from "../types.ts";

/** Characters of a document looked at for sentences. */
const SCAN_CHARS = 20_000;
/** Longest sentence used in a question. */
const MAX_SENTENCE_CHARS = 240;

/** A sentence with one word or number blanked out. */
interface Blank {
  doc: Document;
  /** The sentence with `___` in place of the answer. */
  cloze: string;
  answer: string;
}

/** What each example needs: a number or a word blanked out of a sentence, or nothing. */
type Need = "number" | "word" | "none";

interface Example {
  check: string;
  need: Need;
  /** Comment lines above the question (without `# `). */
  comment: string[];
  /** The question's YAML lines after `- id:` and `question:` (indented by two). */
  body: (blank: Blank | null) => string[];
  /** The question text. */
  question: (blank: Blank | null) => string;
}

const q = (value: string) => JSON.stringify(value);

const askNumber = (b: Blank | null) =>
  b ? `In "${b.doc.title}", which number fills the blank: "${b.cloze}"?` : "";
const askWord = (b: Blank | null) =>
  b ? `In "${b.doc.title}", which word fills the blank: "${b.cloze}"?` : "";
const evidence = (b: Blank | null) => b ? [`evidence: [${q(b.doc.id)}]`] : [];

const REFUSAL = "(not|no|cannot|can't|couldn't|unable)[^.]*(find|found|mention|say|know|contain)";

const EXAMPLES: readonly Example[] = [
  {
    check: "numeric_equals",
    need: "number",
    comment: [
      "numeric_equals: some number written in the answer equals value (within tolerance).",
    ],
    question: askNumber,
    body: (b) => [
      ...evidence(b),
      `checks: [{type: numeric_equals, value: ${Number(b?.answer.replace(/,/g, ""))}}]`,
    ],
  },
  {
    check: "icontains",
    need: "word",
    comment: ["icontains: the answer contains value, ignoring case."],
    question: askWord,
    body: (b) => [...evidence(b), `checks: [{type: icontains, value: ${q(b?.answer ?? "")}}]`],
  },
  {
    check: "contains",
    need: "word",
    comment: ["contains: the answer contains value, case and all."],
    question: askWord,
    body: (b) => [...evidence(b), `checks: [{type: contains, value: ${q(b?.answer ?? "")}}]`],
  },
  {
    check: "equals",
    need: "number",
    comment: [
      "equals: the whole answer (trimmed, one final full stop ignored) is exactly value;",
      "ask for a bare answer when you use it.",
    ],
    question: (b) => b ? `${askNumber(b)} Answer with the number only.` : "",
    body: (b) => [...evidence(b), `checks: [{type: equals, value: ${q(b?.answer ?? "")}}]`],
  },
  {
    check: "exact_match",
    need: "word",
    comment: [
      "exact_match: the answer equals a gold answer after SQuAD normalisation",
      "(case, punctuation and a/an/the ignored); the gold answers are `answers:`.",
    ],
    question: (b) => b ? `${askWord(b)} Answer with the word only.` : "",
    body: (b) => [
      ...evidence(b),
      `answers: [${q(b?.answer ?? "")}]`,
      "checks: [{type: exact_match}]",
    ],
  },
  {
    check: "token_f1",
    need: "word",
    comment: [
      "token_f1: the best word-overlap F1 with a gold answer is at least threshold (default 0.5).",
    ],
    question: askWord,
    body: (b) => [
      ...evidence(b),
      `answers: [${q(b?.answer ?? "")}]`,
      "checks: [{type: token_f1, threshold: 0.5}]",
    ],
  },
  {
    check: "min_tool_calls",
    need: "word",
    comment: [
      "min_tool_calls / max_tool_calls: the system made at least / at most value tool calls",
      "(systems without tools make none); tool_used: it called that tool at least once.",
    ],
    question: askWord,
    body: (b) => [
      ...evidence(b),
      "checks:",
      `  - {type: icontains, value: ${q(b?.answer ?? "")}}`,
      "  - {type: min_tool_calls, value: 1}",
      "  - {type: max_tool_calls, value: 4}",
      "  - {type: tool_used, tool: search}",
    ],
  },
  {
    check: "iregex",
    need: "none",
    comment: [
      "iregex: a case-insensitive RE2 pattern matches the answer; not_contains: the answer",
      "does not hold value. Together they score a question the documents cannot answer:",
      "the system must say so, and must not make a figure up.",
    ],
    question: () =>
      "What was the population of the city of Atlantis in the year 1000? " +
      "Say so if the documents do not tell.",
    body: () => [
      "kind: unanswerable",
      "checks:",
      `  - {type: iregex, pattern: ${q(REFUSAL)}}`,
      `  - {type: not_contains, value: "000 inhabitants"}`,
    ],
  },
];

/**
 * The questions file's text for `corpus` (see the module doc); `docsLabel`
 * names the documents' folder in its header.
 */
export function starterQuestions(corpus: Corpus, docsLabel: string): string {
  const docs = corpus.documents;
  const lines = [
    `# Starter questions for the documents in ${docsLabel}, written by \`ragbench init\`.`,
    "# Each example below uses one check type on a sentence of your documents, with that",
    "# document's id as its evidence (a document's id is its path in the folder without",
    "# the extension). Replace them with your own questions: a question may have any number",
    "# of checks (its score is the share that pass) and any number of evidence ids (the",
    "# documents that hold the answer; they drive the retrieval columns, nDCG and recall).",
    '# The README\'s "Questions" section lists every field. The examples fill a blank in a',
    "# sentence, so keyword search finds them easily: your own questions will tell the",
    "# retrievers apart better.",
    "",
  ];
  const used = new Set<string>();
  EXAMPLES.forEach((example, n) => {
    const blank = example.need === "none"
      ? null
      : findBlank(docs, example.need, Math.floor((n * docs.length) / EXAMPLES.length), used);
    lines.push(...example.comment.map((c) => `# ${c}`));
    const question = example.need !== "none" && blank === null ? null : example.question(blank);
    const entry = [
      `- id: ${example.check}_example`,
      `  question: ${q(question ?? "Your question about your documents?")}`,
      ...example.body(blank).map((l) => `  ${l}`),
    ];
    if (question === null) {
      lines.push(
        `# (No sentence of your documents fits this example${
          example.need === "number" ? ": none has a number" : ""
        }; fill it in and uncomment it.)`,
        ...entry.map((l) => `# ${l}`),
      );
    } else lines.push(...entry);
    lines.push("");
  });
  return lines.join("\n");
}

/**
 * A sentence of a document, with a number or word blanked: documents are
 * tried from `start` on, wrapping; each (document, answer) is used once.
 */
function findBlank(
  docs: readonly Document[],
  need: "number" | "word",
  start: number,
  used: Set<string>,
): Blank | null {
  for (let k = 0; k < docs.length; k++) {
    const doc = docs[(start + k) % docs.length];
    for (const sentence of sentencesOf(doc.text)) {
      const words = sentence.split(" ");
      let best = -1;
      for (let i = 0; i < words.length; i++) {
        const word = bare(words[i]);
        const fits = need === "number" ? isNumber(word) : isWord(word);
        if (fits && (best < 0 || (need === "word" && word.length > bare(words[best]).length))) {
          best = i;
          if (need === "number") break;
        }
      }
      if (best < 0) continue;
      const answer = bare(words[best]);
      const key = `${doc.id}\0${answer}`;
      if (used.has(key)) continue;
      used.add(key);
      const cloze = words.map((w, i) => i === best ? w.replace(answer, "___") : w).join(" ");
      return { doc, cloze, answer };
    }
  }
  return null;
}

/** Sentences of the start of `text`, whitespace collapsed, that fit a question. */
function* sentencesOf(text: string): Generator<string> {
  const paragraphs: string[] = [];
  let current: string[] = [];
  for (const line of text.slice(0, SCAN_CHARS).split("\n")) {
    // Lines that are markup (headings, table rows, code fences, bullets) are not prose.
    if (line.trim() === "" || !/^\s*[A-Za-z0-9"'(]/.test(line)) {
      if (current.length > 0) paragraphs.push(current.join(" "));
      current = [];
    } else current.push(line);
  }
  if (current.length > 0) paragraphs.push(current.join(" "));
  for (const paragraph of paragraphs) {
    for (const raw of paragraph.split(/(?<=[.!?])\s+/)) {
      const sentence = raw.replace(/\s+/g, " ").trim();
      const count = sentence.split(" ").length;
      if (count < 5 || count > 40 || sentence.length > MAX_SENTENCE_CHARS) continue;
      if (!/[.!?]$/.test(sentence)) continue;
      yield sentence;
    }
  }
}

/** A word without the punctuation around it. */
function bare(word: string): string {
  return word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
}

function isNumber(word: string): boolean {
  return /^\d{1,3}(,\d{3})+(\.\d+)?$|^\d+(\.\d+)?$/.test(word) &&
    Number.isFinite(Number(word.replace(/,/g, "")));
}

function isWord(word: string): boolean {
  return word.length >= 5 && word.length <= 30 && /^\p{L}+$/u.test(word) &&
    !COMMON.has(word.toLowerCase());
}

/** Words too common to make a good blank. */
const COMMON = new Set([
  "about",
  "after",
  "again",
  "being",
  "below",
  "could",
  "every",
  "first",
  "other",
  "should",
  "their",
  "there",
  "these",
  "those",
  "through",
  "under",
  "where",
  "which",
  "while",
  "would",
]);
