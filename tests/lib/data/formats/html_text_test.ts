import assert from "node:assert/strict";
import { htmlText, MAX_TITLE_CHARS } from "../../../../lib/data/formats/html_text.ts";
import { withinCpu } from "../../../support/cpu_time.ts";

Deno.test("html: the title, and the text a reader sees, blocks on their own lines", () => {
  const page = htmlText(`<!doctype html>
<html><head><title>Harbor &amp; Tides</title><meta charset="utf-8">
<style>p { color: red }</style><script>var hidden = "no";</script></head>
<body>
  <nav><a href="/">Home</a> <a href="/about">About</a></nav>
  <h1>Harbor   guide</h1>
  <p>The harbor opened in <b>1901</b>.
     It has <em>three</em> piers.</p>
  <!-- a comment -->
  <ul><li>North pier</li><li>South&nbsp;pier</li></ul>
  <table><tr><th>Pier</th><th>Length</th></tr><tr><td>North</td><td>120 m</td></tr></table>
  <pre>def tide(h):
    return h * 2</pre>
  <p>Line one<br>line two &#x263A; &#233;</p>
  <noscript>Enable JavaScript</noscript><template><p>not shown</p></template>
</body></html>`);
  assert.equal(page.title, "Harbor & Tides");
  assert.equal(
    page.text,
    [
      "Home About",
      "",
      "# Harbor guide",
      "",
      "The harbor opened in 1901. It has three piers.",
      "",
      "- North pier",
      "- South\u00a0pier",
      "",
      "Pier | Length",
      "North | 120 m",
      "",
      "def tide(h):",
      "    return h * 2",
      "",
      "Line one",
      "line two \u263a \u00e9",
    ].join("\n"),
  );
});

Deno.test("html: a page without <title> takes its first <h1>; titles are cut to a bound", () => {
  assert.equal(
    htmlText("<h1>First <i>heading</i></h1><h1>Second</h1><p>x</p>").title,
    "First heading",
  );
  assert.equal(htmlText("<p>no heading</p>").title, "");
  const long = htmlText(`<title>${"t".repeat(MAX_TITLE_CHARS * 3)}</title>`).title;
  assert.equal(long.length, MAX_TITLE_CHARS);
});

Deno.test("html: an unclosed <script> or <svg> hides the rest, as in a browser; stray closes are ignored", () => {
  assert.equal(htmlText("<p>shown</p><script>var x = '</p>never").text, "shown");
  assert.equal(htmlText("<p>a</p></svg></script></div><p>b</p>").text, "a\n\nb");
  assert.equal(htmlText("<p>a</p><svg><text>label</text><p>c").text, "a");
});

Deno.test("html: invalid character references read as U+FFFD, never throw", () => {
  assert.equal(htmlText("<p>&#xD800; &#1114112; &#0;</p>").text, "\ufffd \ufffd \ufffd");
});

Deno.test("html: hostile nesting stays linear (htmlparser2's own parser is quadratic here)", () => {
  const n = 200_000;
  const hostile = [
    "<div>".repeat(n) + "</span>".repeat(n) + "<p>end</p>",
    "<p><b>".repeat(n) + "text",
    "<table><tr><td>".repeat(n),
    "<" + "a ".repeat(n),
    "<!--" + "-".repeat(n),
    "&amp".repeat(n),
  ];
  for (const html of hostile) {
    // ~1-2 MB each; the quadratic parser takes minutes on the first two.
    const page = withinCpu(3000, () => htmlText(html), `a ${html.slice(0, 10)}… page`);
    assert.equal(typeof page.text, "string");
  }
  assert.equal(htmlText(hostile[0]).text, "end");
});
