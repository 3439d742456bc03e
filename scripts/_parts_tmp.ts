import { eachLine } from "../lib/util/byte_lines.ts";
import { LineCompactor } from "../lib/report/compact_line.ts";
const path = Deno.args[0];
function pass(name: string, f: (text: string) => void) {
  const file = Deno.openSync(path);
  const d = new TextDecoder();
  const t0 = performance.now();
  eachLine(file, (bytes) => f(d.decode(bytes)));
  file.close();
  console.log(name, (performance.now() - t0).toFixed(0), "ms");
}
for (let i = 0; i < 3; i++) {
  pass("parse", (t) => JSON.parse(t));
  const c = new LineCompactor({});
  const keep: unknown[] = [];
  pass("parse+compact", (t) => {
    const v = JSON.parse(t);
    keep.push(c.compact(v));
  });
}
