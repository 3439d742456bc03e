import assert from "node:assert/strict";
import { joinHtml, markup, raw } from "../../../../lib/report/html/html.ts";

Deno.test("html escapes every interpolated string, in text and in attributes", () => {
  const answer = `</td><script>alert("x")</script><img src=x onerror='y'>&amp;`;
  const out = markup`<td title="${answer}">${answer}</td>`.text;
  assert.equal(
    out,
    '<td title="&lt;/td&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;amp;">' +
      "&lt;/td&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;amp;</td>",
  );
});

Deno.test("html keeps nested markup, joins lists, and leaves out null, undefined and false", () => {
  const rows = ["a<b", "c"].map((x) => markup`<li>${x}</li>`);
  assert.equal(
    markup`<ul>${rows}${null}${undefined}${false}${0}</ul>`.text,
    "<ul><li>a&lt;b</li><li>c</li>0</ul>",
  );
  assert.equal(markup`${raw("<br>")}`.text, "<br>");
  assert.equal(joinHtml([markup`<i>1</i>`, "<2>"], ", ").text, "<i>1</i>, &lt;2&gt;");
  // A string made by concatenating markup is text again: it is escaped, never trusted.
  assert.equal(markup`${markup`<b>` + ""}`.text, "&lt;b&gt;");
});

Deno.test("html refuses an object rather than print [object Object]", () => {
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => markup`${{ toString: () => "<b>" } as any}`,
    /cannot put a value of type object into HTML/,
  );
});
