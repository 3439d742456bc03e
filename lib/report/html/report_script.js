// The script of report.html (imported as text by page.ts and put in the page as it is). It renders
// two views of the data embedded in #report-data, a page at a time: the matrix (one row per
// question, one column per system, each cell the system's answer coloured by its verdict, with
// its trace summary behind a click) and the list of result lines (filterable; a click shows a
// line's checks and every step of its trace). Text is only ever written with textContent, never
// as HTML, so nothing a model or a question says can become markup or script.
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const settings = JSON.parse(document.getElementById("report-settings").textContent);

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }
  function addOptions(select, values, label) {
    for (const v of values) {
      const option = el("option", null, label ? label(v) : v === "" ? "(none)" : v);
      option.value = String(v);
      select.appendChild(option);
    }
  }
  function unique(values) {
    return values.filter((v, i, a) => a.indexOf(v) === i).sort((a, b) =>
      a < b ? -1 : a > b ? 1 : 0
    );
  }
  // A line's nDCG: a line that made no retrieval shows none unless its system retrieves on other
  // questions (then its 0 is what the summaries count, as trec_eval does).
  const retrieves = data.systems.map(() => false);
  for (const line of data.lines) if (line.nd !== undefined && !line.nr) retrieves[line.s] = true;
  function ndcgOf(line) {
    if (line.nd === undefined || (line.nr && !retrieves[line.s])) return null;
    return line.nd;
  }
  function fixed(value, digits) {
    return value === null || value === undefined ? "-" : value.toFixed(digits);
  }
  function pager(prefix, state, pages, onChange) {
    document.getElementById(prefix + "prev-page").addEventListener("click", () => {
      if (state.page > 0) {
        state.page--;
        onChange();
      }
    });
    document.getElementById(prefix + "next-page").addEventListener("click", () => {
      if (state.page < pages() - 1) {
        state.page++;
        onChange();
      }
    });
  }

  /** The steps of a line as boxes (shared by the matrix and the list). */
  function stepBoxes(line) {
    const steps = el("div", "trace-steps");
    line.steps.forEach((s, i) => {
      const box = el("div", "step " + s.k);
      if (s.k === "model") {
        const head = (i + 1) + ". model" + (s.final ? " (final answer call)" : "") + " · " + s.ms +
          " ms";
        box.appendChild(el("strong", null, head));
        if (s.text) box.appendChild(el("pre", null, s.text));
        for (const c of s.calls) box.appendChild(el("pre", null, "→ " + c));
      } else if (s.k === "tool") {
        box.appendChild(el("strong", null, (i + 1) + ". tool " + s.tool + " · " + s.ms + " ms"));
        box.appendChild(el("pre", null, "args: " + s.args));
        box.appendChild(el("pre", s.err ? "status-error" : null, s.err ? "error " + s.err : s.out));
      } else {
        box.appendChild(el("strong", null, (i + 1) + ". retrieval · " + s.ms + " ms"));
        box.appendChild(el("pre", null, "query: " + s.query));
        const text = s.err ? "error " + s.err : s.hits.join("\n");
        box.appendChild(el("pre", s.err ? "status-error" : null, text));
      }
      steps.appendChild(box);
    });
    if (line.more) {
      steps.appendChild(
        el("p", "note", line.more + " more steps are in per_question_results.jsonl"),
      );
    }
    return steps;
  }
  function checkList(line) {
    const list = el("ul", "checks");
    for (const c of line.checks) {
      const text = (c[1] ? "pass " : "FAIL ") + c[0] + ": " + c[2];
      list.appendChild(el("li", c[1] ? "status-pass" : "status-fail", text));
    }
    if (line.checks.length === 0) list.appendChild(el("li", null, "(no answer checks)"));
    return list;
  }
  /** "3 steps: model ×2, search ×1" */
  function stepSummary(line) {
    const counts = new Map();
    for (const s of line.steps) {
      const name = s.k === "tool" ? s.tool : s.k;
      counts.set(name, (counts.get(name) || 0) + 1);
    }
    const total = line.steps.length + line.more;
    const parts = [...counts].map(([name, n]) => name + " ×" + n);
    const errors = line.steps.filter((s) => s.err).length;
    return total + (total === 1 ? " step" : " steps") +
      (parts.length ? ": " + parts.join(", ") : "") +
      (errors ? " · " + errors + (errors === 1 ? " error" : " errors") : "");
  }

  /** "retrieved: a#0, b#2, …" for a line with no answer (a retrieval-only system). */
  function retrievedText(line) {
    // Each hit is "passage_id (score)": the ids say what was found.
    const hits = line.steps.flatMap((s) => (s.k === "retrieval" ? s.hits : []))
      .map((h) => h.replace(/ \([^()]*\)$/, ""));
    if (hits.length === 0) return null;
    return "retrieved: " + hits.slice(0, 5).join(", ") + (hits.length > 5 ? ", …" : "");
  }

  // ---- The matrix: questions × systems ----
  const matrix = {
    show: "all",
    kind: "__all__",
    repeat: null,
    find: "",
    page: 0,
  };
  const byCell = new Map();
  const repeats = unique(data.lines.map((l) => l.r));
  data.lines.forEach((line, index) => byCell.set(line.q + "|" + line.s + "|" + line.r, index));
  matrix.repeat = repeats.length ? repeats[0] : 1;
  const questionKind = data.questions.map(() => "");
  for (const line of data.lines) if (line.kind) questionKind[line.q] = line.kind;

  let matrixPages = 1;

  function cellLine(q, s) {
    const index = byCell.get(q + "|" + s + "|" + matrix.repeat);
    return index === undefined ? null : data.lines[index];
  }
  function questionShown(q) {
    if (matrix.kind !== "__all__" && questionKind[q] !== matrix.kind) return false;
    if (matrix.find) {
      const [id, text] = data.questions[q];
      const needle = matrix.find.toLowerCase();
      if (!id.toLowerCase().includes(needle) && !text.toLowerCase().includes(needle)) return false;
    }
    if (matrix.show === "all") return true;
    const statuses = data.systems.map((_, s) => {
      const line = cellLine(q, s);
      return line ? line.status : null;
    }).filter((x) => x !== null);
    const failed = statuses.filter((x) => x === "fail" || x === "error").length;
    if (matrix.show === "disagree") return failed > 0 && failed < statuses.length;
    if (matrix.show === "some-fail") return failed > 0;
    if (matrix.show === "all-fail") return statuses.length > 0 && failed === statuses.length;
    return true;
  }
  function matrixCell(line) {
    const td = el("td", "cell");
    if (!line) {
      td.classList.add("missing");
      td.appendChild(el("span", "note", "no result"));
      return td;
    }
    td.classList.add(line.status);
    const nd = ndcgOf(line);
    if (line.status === "unscored" && nd !== null) {
      td.classList.add("heat");
      td.style.setProperty("--v", nd.toFixed(3));
    }
    const head = el("div", "cell-head");
    // A line without checks shaded by its nDCG needs no "unscored" badge.
    const badge = line.status === "unscored" && nd !== null ? "" : line.status;
    head.appendChild(el("span", "badge " + line.status, badge));
    const figures = [];
    if (line.score !== null) figures.push("score " + line.score.toFixed(2));
    if (nd !== null) figures.push(settings.ndcg + " " + nd.toFixed(2));
    figures.push(line.ms + " ms");
    head.appendChild(el("span", "figures", figures.join(" · ")));
    td.appendChild(head);
    const answer = line.error ? line.error : line.answer || retrievedText(line) || "(no answer)";
    td.appendChild(el("div", line.error ? "cell-answer status-error" : "cell-answer", answer));
    if (line.label) td.appendChild(el("div", "note", "failure: " + line.label));
    const details = el("details", "cell-trace");
    details.appendChild(
      el("summary", null, line.rowOnly ? "trace in the JSONL" : stepSummary(line)),
    );
    details.addEventListener("toggle", () => {
      if (!details.open || details.dataset.filled) return;
      details.dataset.filled = "1";
      if (line.rowOnly) {
        details.appendChild(el("p", "note", "This run is too large to embed every trace."));
        return;
      }
      details.appendChild(checkList(line));
      details.appendChild(stepBoxes(line));
    });
    td.appendChild(details);
    return td;
  }
  function renderMatrix() {
    const body = document.querySelector("#matrix-table tbody");
    if (!body) return;
    const rows = [];
    for (let q = 0; q < data.questions.length; q++) if (questionShown(q)) rows.push(q);
    const size = settings.matrixPage;
    const pages = Math.max(1, Math.ceil(rows.length / size));
    if (matrix.page >= pages) matrix.page = pages - 1;
    clear(body);
    for (const q of rows.slice(matrix.page * size, (matrix.page + 1) * size)) {
      const tr = el("tr");
      const th = el("th", "question");
      th.scope = "row";
      th.appendChild(el("div", "qid", data.questions[q][0]));
      if (questionKind[q]) th.appendChild(el("div", "note", questionKind[q]));
      th.appendChild(el("div", "qtext", data.questions[q][1]));
      tr.appendChild(th);
      data.systems.forEach((_, s) => tr.appendChild(matrixCell(cellLine(q, s))));
      body.appendChild(tr);
    }
    document.getElementById("matrix-info").textContent = rows.length +
      (rows.length === 1 ? " question" : " questions") + " · page " + (matrix.page + 1) + " of " +
      pages;
    matrixPages = pages;
  }
  function setUpMatrix() {
    const head = document.querySelector("#matrix-table thead tr");
    if (!head) return;
    data.systems.forEach((name, s) => {
      const th = el("th", "system");
      th.appendChild(el("div", null, name));
      const lines = data.lines.filter((l) => l.s === s && l.r === matrix.repeat);
      const passed = lines.filter((l) => l.status === "pass").length;
      const scored = lines.filter((l) => l.status !== "unscored").length;
      if (scored) th.appendChild(el("div", "note", passed + "/" + scored + " pass"));
      const nds = lines.map(ndcgOf).filter((v) => v !== null);
      if (!scored && nds.length) {
        const mean = nds.reduce((a, b) => a + b, 0) / nds.length;
        th.appendChild(el("div", "note", "mean " + settings.ndcg + " " + mean.toFixed(3)));
      }
      head.appendChild(th);
    });
    const kind = document.getElementById("matrix-kind");
    const kinds = unique(questionKind.filter((k) => k !== ""));
    addOptions(kind, kinds);
    if (kinds.length === 0) kind.parentElement.hidden = true;
    const repeat = document.getElementById("matrix-repeat");
    addOptions(repeat, repeats, (r) => "repeat " + r);
    if (repeats.length < 2) repeat.parentElement.hidden = true;
    const on = (id, event, apply) =>
      document.getElementById(id).addEventListener(event, (e) => {
        apply(e.target.value);
        matrix.page = 0;
        renderMatrix();
      });
    on("matrix-show", "change", (v) => matrix.show = v);
    on("matrix-kind", "change", (v) => matrix.kind = v);
    on("matrix-repeat", "change", (v) => matrix.repeat = Number(v));
    on("matrix-find", "input", (v) => matrix.find = v.trim());
    pager("matrix-", matrix, () => matrixPages, renderMatrix);
    renderMatrix();
  }

  // ---- The list of result lines ----
  const list = { system: "", kind: "__all__", status: "", page: 0, open: -1 };
  const listBody = document.querySelector("#questions-table tbody");
  const columns = document.querySelectorAll("#questions-table thead th").length;
  function matches(line) {
    if (list.system !== "" && data.systems[line.s] !== list.system) return false;
    if (list.kind !== "__all__" && line.kind !== list.kind) return false;
    if (list.status !== "" && line.status !== list.status) return false;
    return true;
  }
  let listPages = 1;
  function traceRow(line) {
    const tr = el("tr", "trace");
    const td = el("td");
    td.colSpan = columns;
    const q = data.questions[line.q];
    td.appendChild(el("h3", null, "Question " + q[0]));
    td.appendChild(el("pre", null, q[1]));
    td.appendChild(el("h3", null, "Answer"));
    td.appendChild(el("pre", null, line.answer || "(no answer)"));
    if (line.error) {
      td.appendChild(el("h3", null, "Error"));
      td.appendChild(el("pre", null, line.error));
    }
    if (line.label) td.appendChild(el("p", null, "Failure label: " + line.label));
    if (line.rowOnly) {
      const text = "This run is too large to embed every trace: this line's checks and " +
        line.more +
        " steps are in per_question_results.jsonl.";
      td.appendChild(el("p", "note", text));
      tr.appendChild(td);
      return tr;
    }
    td.appendChild(el("h3", null, "Checks"));
    td.appendChild(checkList(line));
    td.appendChild(el("h3", null, "Trace (" + line.steps.length + " steps)"));
    td.appendChild(stepBoxes(line));
    tr.appendChild(td);
    return tr;
  }
  function renderList() {
    const rows = [];
    for (let i = 0; i < data.lines.length; i++) if (matches(data.lines[i])) rows.push(i);
    const size = settings.listPage;
    const pages = Math.max(1, Math.ceil(rows.length / size));
    listPages = pages;
    if (list.page >= pages) list.page = pages - 1;
    clear(listBody);
    for (const index of rows.slice(list.page * size, (list.page + 1) * size)) {
      const line = data.lines[index];
      const tr = el("tr", "row");
      tr.dataset.index = String(index);
      tr.appendChild(el("td", null, data.systems[line.s]));
      tr.appendChild(el("td", null, data.questions[line.q][0] + "#" + line.r));
      tr.appendChild(el("td", null, line.kind || "-"));
      tr.appendChild(el("td", "status-" + line.status, line.status));
      tr.appendChild(el("td", "num", fixed(line.score, 2)));
      if (settings.ndcg) tr.appendChild(el("td", "num", fixed(ndcgOf(line), 3)));
      tr.appendChild(el("td", "num", fixed(line.ms, 1)));
      tr.appendChild(el("td", "answer", line.answer || retrievedText(line) || ""));
      tr.addEventListener("click", () => {
        list.open = list.open === index ? -1 : index;
        renderList();
      });
      listBody.appendChild(tr);
      if (list.open === index) listBody.appendChild(traceRow(line));
    }
    const info = document.getElementById("page-info");
    info.textContent = rows.length + " lines · page " + (list.page + 1) + " of " + pages;
  }
  function setUpList() {
    const systemSelect = document.getElementById("filter-system");
    const kindSelect = document.getElementById("filter-kind");
    const statusSelect = document.getElementById("filter-status");
    addOptions(systemSelect, data.systems);
    const kinds = unique(data.lines.map((l) => l.kind));
    addOptions(kindSelect, kinds);
    if (kinds.length === 1 && kinds[0] === "") kindSelect.parentElement.hidden = true;
    const on = (select, apply) =>
      select.addEventListener("change", () => {
        apply(select.value);
        list.page = 0;
        renderList();
      });
    on(systemSelect, (v) => list.system = v);
    on(kindSelect, (v) => list.kind = v);
    on(statusSelect, (v) => list.status = v);
    pager("", list, () => listPages, renderList);
    renderList();
  }

  setUpMatrix();
  setUpList();
})();
