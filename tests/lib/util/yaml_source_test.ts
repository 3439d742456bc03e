import assert from "node:assert/strict";
import { join } from "node:path";
import { parseYaml, parseYamlWithPositions } from "../../../lib/util/yaml_source.ts";
import { ROOT } from "../../support/cli.ts";

async function yamlFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const full = join(dir, entry.name);
    if (entry.isDirectory) out.push(...await yamlFiles(full));
    else if (/\.ya?ml$/.test(entry.name)) out.push(full);
  }
  return out;
}

Deno.test("yaml: both parsers read every YAML file of the repository to the same value", async () => {
  const files = [
    ...await yamlFiles(join(ROOT, "configs")),
    ...await yamlFiles(join(ROOT, "arenas")),
    ...await yamlFiles(join(ROOT, "tests/fixtures")),
  ];
  assert.ok(files.length >= 5, `found only ${files.length} files`);
  for (const file of files) {
    const text = await Deno.readTextFile(file);
    assert.deepEqual(
      parseYaml(text, file).source.value,
      parseYamlWithPositions(text, file).source.value,
      file,
    );
  }
});

Deno.test("yaml: both parsers agree on the core schema's scalars", () => {
  const text = "a: 1\nb: 2026-01-01\nc: 0x1F\nd: 1_000\ne: .inf\nf: 0o17\ng: yes\nh: ~\n" +
    'i: "1"\nj: 1.5e3\nk: true\nl: |\n  two\n  lines\nm: [1, {n: null}]\n__proto__: p\n';
  const fast = parseYaml(text, "s.yaml").source.value;
  assert.deepEqual(fast, parseYamlWithPositions(text, "s.yaml").source.value);
  assert.ok(Object.hasOwn(fast as object, "__proto__"));
});

Deno.test("yaml: the fast path still gives positions, parsing them only when asked", () => {
  const { source, issues } = parseYaml("a:\n  b: [1, 2]\n", "p.yaml");
  assert.deepEqual(issues, []);
  assert.deepEqual(source.positionOf(["a", "b", 1]), { file: "p.yaml", line: 2, column: 10 });
});

Deno.test("yaml: a duplicate key is refused with its position", () => {
  assert.deepEqual(parseYaml("a: 1\na: 2\n", "d.yaml").issues.map((i) => i.position), [
    { file: "d.yaml", line: 2, column: 1 },
  ]);
});

Deno.test("yaml: nesting too deep for the reader is named as such, with its place", () => {
  const text = "questions:\n  - tags: " + "[".repeat(5000) + "x" + "]".repeat(5000) + "\n";
  const { issues } = parseYaml(text, "q.yaml");
  assert.equal(issues.length > 0, true);
  assert.equal(
    issues[0].message,
    "nested too deeply to read (here the YAML reader ran out of stack); write the value flatter",
  );
  assert.equal(issues[0].position.line, 2);
});
