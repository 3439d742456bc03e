import { GREP_KERNEL_BASE64 as NEW } from "./lib/grep/kernel/grep_kernel_bytes.ts";
import { GREP_KERNEL_BASE64 as OLD } from "/tmp/c6/base/lib/grep/kernel/grep_kernel_bytes.ts";
import { syntheticCorpus, vocabulary } from "./scripts/synthetic_corpus.ts";
const mod = (b64: string) => new WebAssembly.Module(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
const corpus = syntheticCorpus({ documents: 30000 });
const text = corpus.documents.map((d) => d.text).join("\n");
const bytes = new TextEncoder().encode(text);
const pages = Math.ceil((bytes.length + 4096 + 64) / 65536);
const oldMem = new WebAssembly.Memory({ initial: pages });
new Uint8Array(oldMem.buffer).set(bytes, 4096);
const newMem = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
new Uint8Array(newMem.buffer).set(bytes, 0);
const oldK = new WebAssembly.Instance(mod(OLD), { env: { memory: oldMem } }).exports as any;
const newK = new WebAssembly.Instance(mod(NEW), { env: { memory: newMem } }).exports as any;
const word = vocabulary(200000)[3100];
const needle = new TextEncoder().encode(word);
new Uint8Array(oldMem.buffer).set(needle, 0);
const w = new Int32Array(8); new Uint8Array(w.buffer).set(needle);
// pair bytes: use first and last byte
const b1 = needle[0], b2 = needle[needle.length - 1], dist = needle.length - 1;
for (let round = 0; round < 3; round++) {
  for (const [name, f] of [["old", () => { let n = 0, q = 4096; for (;;) { const r = oldK.find_word(q, 4096 + bytes.length - needle.length + 1, b1, b2, 0, dist, 0x20, 0x20, 0, needle.length, 0x20); if (r < 0) break; n++; q = r + 1; } return n; }], ["new", () => { let n = 0, q = 0; for (;;) { const r = newK.find_word(q, bytes.length - needle.length + 1, b1, b2, 0, dist, 0x20, 0x20, w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], needle.length, 0x20); if (r < 0) break; n++; q = r + 1; } return n; }]] as const) {
    const s = performance.now(); let n = 0; for (let k = 0; k < 10; k++) n = f(); const ms = (performance.now() - s) / 10;
    console.log(name, n, (bytes.length / 1e6 / (ms / 1000)).toFixed(0), "MB/s");
  }
}
