"use strict";
// Sortable tables: a click on a column's button sorts the rows by the cells' data-sort values.
// Empty values stay last; rows that compare equal keep their leaderboard order (data-order).
document.querySelectorAll("table.sortable").forEach(function (table) {
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  heads.forEach(function (th, column) {
    var button = th.querySelector("button");
    if (!button) { return; }
    button.addEventListener("click", function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var numeric = th.getAttribute("data-type") === "number";
      var state = th.getAttribute("aria-sort");
      var direction = state === "ascending" ? -1 : state === "descending" ? 1 :
        (th.getAttribute("data-first") === "desc" ? -1 : 1);
      rows.sort(function (a, b) {
        var x = a.cells[column].getAttribute("data-sort") || "";
        var y = b.cells[column].getAttribute("data-sort") || "";
        if (x === "" || y === "") { return (x === "") - (y === "") || a.getAttribute("data-order") - b.getAttribute("data-order"); }
        var order = numeric ? parseFloat(x) - parseFloat(y) : (x < y ? -1 : x > y ? 1 : 0);
        return order * direction || a.getAttribute("data-order") - b.getAttribute("data-order");
      });
      heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", direction === 1 ? "ascending" : "descending");
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});

// Filters (issue 15). Page-wide: subject kind and provider hide every row, column and profile of the
// subjects they exclude ([data-subject]). The case explorer adds family, difficulty, case type, tag, subject
// and outcome; a case stays when it matches every filter.
//
// The case explorer and the profiles' "Runs not passed" lists are drawn here, on demand, from the inert JSON
// block #explorer-data (explorer.py explorer_data: run cells interned in "strings"): one page of case rows
// for the current filters, a run's details when it is opened, a profile's list when the profile is opened.
// Every string is data from a pull request: it reaches the page through textContent and setAttribute only,
// and a path is linked only when it is a plain relative path (else it is shown as text).
(function () {
  var facets = Object.create(null);   // keyed by subject ids from the data: no inherited keys
  document.querySelectorAll("#facets [data-facet]").forEach(function (f) {
    facets[f.getAttribute("data-facet")] = {kind: f.getAttribute("data-kind"), provider: f.getAttribute("data-provider")};
  });
  function value(id) { var el = document.getElementById(id); return el ? el.value : ""; }
  function visible(sid) { var f = facets[sid]; return !f || f.visible !== false; }

  // --- the data ---
  var data = null;
  var block = document.getElementById("explorer-data");
  try { data = block ? JSON.parse(block.textContent) : null; } catch (e) { data = null; }
  var strings = data ? data.strings : [], runRows = data ? data.runs.rows : [], col = {}, caseCol = {};
  if (data) {
    data.runs.columns.forEach(function (name, i) { col[name] = i; });
    data.cases.columns.forEach(function (name, i) { caseCol[name] = i; });
  }
  // A column the data leaves out (a field the benchmark does not record: classification, correctness,
  // confidence, case type, difficulty) reads as "" and is not shown.
  function has(name) { return Object.prototype.hasOwnProperty.call(col, name); }
  function cell(run, name) { return has(name) ? strings[runRows[run][col[name]]] : ""; }
  function scored(run) { return cell(run, "reviewer_id") !== ""; }
  function notPassed(run) { var c = cell(run, "classification"); return c !== "" && c !== "Pass"; }
  var cases = data ? data.cases.rows.map(function (row) {
    var c = {};
    Object.keys(caseCol).forEach(function (name) { c[name] = row[caseCol[name]]; });
    c.tagList = c.tags.split(";").filter(function (t) { return t !== ""; });
    return c;
  }) : [];
  var caseIndex = new Map(), runsAt = new Map(), failedOf = new Map();
  cases.forEach(function (c, i) { caseIndex.set(c.case_id, i); });
  runRows.forEach(function (row, run) {     // runsAt: case id -> subject id -> runs, in file order
    var caseId = cell(run, "case_id"), sid = cell(run, "subject_id");
    if (!runsAt.has(caseId)) { runsAt.set(caseId, new Map()); }
    var bySubject = runsAt.get(caseId);
    if (!bySubject.has(sid)) { bySubject.set(sid, []); }
    bySubject.get(sid).push(run);
    if (notPassed(run)) {
      if (!failedOf.has(sid)) { failedOf.set(sid, []); }
      failedOf.get(sid).push(run);
    }
  });
  function runsOf(caseId, sid) { var bySubject = runsAt.get(caseId); return (bySubject && bySubject.get(sid)) || []; }

  // --- building DOM from data: text nodes and attributes only ---
  function node(tag, attrs, children) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { el.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return el;
  }
  // A plain relative path: segments of letters, digits and . _ - ~ + @, none of them "." or ".."; no scheme,
  // no leading slash, no backslash, query or fragment, no way out of the checkout. Linked relative to results/
  // ("../"), as the committed tables give them.
  function plainPath(path) {
    return /^[A-Za-z0-9._~+@-]+(\/[A-Za-z0-9._~+@-]+)*$/.test(path) &&
      path.split("/").every(function (part) { return part !== "." && part !== ".."; });
  }
  function pathLink(path, text, attrs) {
    if (plainPath(path)) {
      var a = node("a", attrs, [text]);
      a.setAttribute("href", "../" + path);
      return a;
    }
    return node("span", {"class": "refused-path"}, [text + " (not a relative path: ", node("code", {}, [path]), ")"]);
  }
  function dash() { return node("span", {"class": "nd"}, ["\u2014"]); }
  var SHORT = {Pass: "Pass", Conditional: "Cond.", Fail: "Fail"};
  function short(c) { return Object.prototype.hasOwnProperty.call(SHORT, c) ? SHORT[c] : c; }

  function runSummary(run) {
    var status = cell(run, "status"), classification = cell(run, "classification");
    var kind = status === "error" ? "error" : !scored(run) ? "waiting" :
      classification === "" ? "scored" : classification.toLowerCase();
    var summary = node("summary", {}, [node("span", {"class": "run-id mono"}, [cell(run, "run_id")])]);
    if (kind === "error") { summary.appendChild(document.createTextNode(" error")); }
    else if (kind === "waiting") { summary.appendChild(document.createTextNode(" unscored")); }
    else {
      summary.appendChild(document.createTextNode(" " + (classification === "" ? "" : short(classification) + " ")));
      summary.appendChild(node("span", {"class": "score"}, [cell(run, "clipped_score")]));
      if (status === "refused") {
        summary.appendChild(document.createTextNode(" "));
        summary.appendChild(node("span", {"class": "tag"}, ["refused"]));
      }
    }
    if (kind !== "error" && cell(run, "empty_answer") === "true") {
      summary.appendChild(document.createTextNode(" "));
      summary.appendChild(node("span", {"class": "tag empty-answer"}, ["(empty answer)"]));
    }
    var details = node("details", {"class": "run run-" + kind}, [summary]);
    details.setAttribute("data-run", String(run));
    return details;
  }
  function runBody(details) {
    if (details.getAttribute("data-drawn") !== null) { return; }
    details.setAttribute("data-drawn", "");
    var run = parseInt(details.getAttribute("data-run"), 10);
    var link = pathLink(cell(run, "response_dir") + cell(run, "response_file"), "response");
    if (cell(run, "status") === "error") {
      details.appendChild(node("p", {}, ["API or harness failure: no answer, not in N. ", link]));
      return;
    }
    var empty = cell(run, "empty_answer") === "true" ? " (empty answer)" : "";
    if (!scored(run)) {
      details.appendChild(node("p", {}, ["Awaiting a scoring. ", link, empty]));
      return;
    }
    var scores = node("ul", {"class": "scores"});
    cell(run, "criterion_scores").split(";").forEach(function (part) {
      if (part === "") { return; }
      var at = part.indexOf("="), name = at < 0 ? part : part.slice(0, at), score = at < 0 ? "" : part.slice(at + 1);
      scores.appendChild(node("li", {}, [name.split("_").join(" ") + " ", node("strong", {}, [score])]));
    });
    var grade = node("p", {}, ["fails: "]);
    var fails = cell(run, "fails").split(";").filter(function (f) { return f !== ""; });
    fails.forEach(function (f, i) {
      var at = f.indexOf(":");
      if (i > 0) { grade.appendChild(document.createTextNode(", ")); }
      grade.appendChild(node("code", {}, [at < 0 ? f : f.slice(0, at)]));
      grade.appendChild(document.createTextNode(" (" + (at < 0 ? "" : f.slice(at + 1)) + ")"));
    });
    if (!fails.length) { grade.appendChild(document.createTextNode("none")); }
    if (has("correctness")) {
      grade.appendChild(document.createTextNode("; correctness "));
      grade.appendChild(cell(run, "correctness") === "" ? dash() : document.createTextNode(cell(run, "correctness")));
    }
    grade.appendChild(document.createTextNode((has("confidence") ? "; confidence " + cell(run, "confidence") : "") +
      "; raw " + cell(run, "raw_score") + ", clipped " + cell(run, "clipped_score")));
    var who = node("p", {}, ["reviewer ", node("code", {}, [cell(run, "reviewer_id")])]);
    if (cell(run, "participant") !== "") { who.appendChild(document.createTextNode(" \u00b7 participant " + cell(run, "participant"))); }
    who.appendChild(document.createTextNode(" \u00b7 "));
    who.appendChild(link);
    if (empty !== "") { who.appendChild(document.createTextNode(empty)); }
    var comments = cell(run, "comments");
    details.appendChild(scores);
    details.appendChild(grade);
    details.appendChild(who);
    details.appendChild(comments === "" ? node("p", {"class": "nd"}, ["no comments"]) : node("blockquote", {}, [comments]));
  }

  // --- the explorer: the cases matching the filters, one page of rows at a time ---
  var table = document.getElementById("explorer-table");
  var PAGE_CELLS = 1000, state = {page: 0, matching: [], columns: [], size: 50};
  function columns() {
    var only = value("explorer-subject");
    return (data ? data.subjects : []).filter(function (s) { return visible(s[0]) && (!only || s[0] === only); });
  }
  function matches(c, shown) {
    var family = value("explorer-family"), difficulty = value("explorer-difficulty"), type = value("explorer-type");
    var tag = value("explorer-tag"), outcome = value("explorer-outcome");
    var ok = (!family || c.family === family) && (!difficulty || c.difficulty === difficulty)
      && (!type || c.case_type === type) && (!tag || c.tagList.indexOf(tag) >= 0);
    if (ok && outcome === "not-pass") {
      ok = shown.some(function (s) { return runsOf(c.case_id, s[0]).some(notPassed); });
    }
    return ok;
  }
  function caseRow(c, shown) {
    var head = node("th", {scope: "row", "class": "subject-col case-col"}, [
      pathLink(c.gold_path, c.case_id, {"class": "mono"}), node("span", {"class": "case-title"}, [c.title]),
      node("span", {"class": "ident"}, [[caseCol.case_type === undefined ? "" : c.case_type,
        caseCol.difficulty === undefined ? "" : "difficulty " + c.difficulty].filter(Boolean).join(" \u00b7 ")])]);
    c.tagList.forEach(function (t) { head.appendChild(document.createTextNode(" ")); head.appendChild(node("span", {"class": "tag"}, [t])); });
    var row = node("tr", {"class": "case-row", id: "case-" + c.case_id}, [head]);
    shown.forEach(function (s) {
      var mine = runsOf(c.case_id, s[0]);
      row.appendChild(node("td", {"data-subject": s[0]}, mine.length ? mine.map(runSummary) : [dash()]));
    });
    return row;
  }
  function drawPage() {
    var shown = state.columns, first = state.page * state.size;
    var headRow = node("tr", {}, [node("th", {scope: "col", "class": "subject-col"}, ["Case"])]);
    shown.forEach(function (s) {
      var a = node("a", {}, [s[1]]);
      a.setAttribute("href", "#subject-" + s[0]);
      headRow.appendChild(node("th", {scope: "col", "data-subject": s[0]}, [a]));
    });
    table.tHead.replaceChildren(headRow);
    var body = document.createDocumentFragment();
    state.matching.slice(first, first + state.size).forEach(function (i) { body.appendChild(caseRow(cases[i], shown)); });
    table.tBodies[0].replaceChildren(body);
    var n = state.matching.length, pages = Math.max(1, Math.ceil(n / state.size));
    document.getElementById("explorer-count").textContent = n + " of " + cases.length + (cases.length === 1 ? " case shown" : " cases shown");
    document.getElementById("explorer-pager").hidden = n <= state.size;
    document.getElementById("explorer-page").textContent = n ? "cases " + (first + 1) + "\u2013" +
      Math.min(n, first + state.size) + " of " + n + " (page " + (state.page + 1) + " of " + pages + ")" : "";
    document.getElementById("explorer-prev").disabled = state.page === 0;
    document.getElementById("explorer-next").disabled = state.page >= pages - 1;
  }
  function drawExplorer() {
    if (!table || !data) { return; }
    state.columns = columns();
    // up to 50 cases a page, fewer with many subject columns (a page holds about PAGE_CELLS cells)
    state.size = Math.max(10, Math.min(50, Math.floor(PAGE_CELLS / Math.max(1, state.columns.length))));
    state.matching = [];
    cases.forEach(function (c, i) { if (matches(c, state.columns)) { state.matching.push(i); } });
    state.page = 0;
    drawPage();
  }
  function turn(step) {
    var pages = Math.max(1, Math.ceil(state.matching.length / state.size));
    state.page = Math.min(pages - 1, Math.max(0, state.page + step));
    drawPage();
    table.closest(".scroll").scrollTop = 0;
  }
  if (table && data) {
    document.getElementById("explorer-prev").addEventListener("click", function () { turn(-1); });
    document.getElementById("explorer-next").addEventListener("click", function () { turn(1); });
    // toggle does not bubble: listen in the capture phase; draw a run's details the first time it opens
    table.addEventListener("toggle", function (event) {
      var details = event.target;
      if (details.open && details.matches && details.matches("details.run")) { runBody(details); }
    }, true);
  }
  // Show one case in the explorer (a link #case-<id>): clear the case filters when they hide it, turn to its
  // page; with a subject, show that subject's column and open its run ``runId``.
  function showCase(caseId, sid, runId) {
    if (!table || !data || !caseIndex.has(caseId)) { return null; }
    var i = caseIndex.get(caseId), select = document.getElementById("explorer-subject");
    if (sid && select && [].some.call(select.options, function (o) { return o.value === sid; }) && select.value !== sid) {
      select.value = sid;
      drawExplorer();
    }
    if (state.matching.indexOf(i) < 0) {
      ["explorer-family", "explorer-difficulty", "explorer-type", "explorer-tag", "explorer-outcome"].forEach(function (id) {
        var el = document.getElementById(id);
        if (el) { el.value = ""; }
      });
      drawExplorer();
    }
    var at = state.matching.indexOf(i);
    if (at < 0) { return null; }
    if (Math.floor(at / state.size) !== state.page) { state.page = Math.floor(at / state.size); drawPage(); }
    var row = document.getElementById("case-" + caseId);
    table.querySelectorAll("tr.case-target").forEach(function (r) { r.classList.remove("case-target"); });
    row.classList.add("case-target");
    if (sid && runId) {
      [].forEach.call(row.querySelectorAll("details.run"), function (d) {
        var run = parseInt(d.getAttribute("data-run"), 10);
        if (cell(run, "subject_id") === sid && cell(run, "run_id") === runId) { runBody(d); d.open = true; }
      });
    }
    return row;
  }

  // --- the profiles' "Runs not passed", drawn when a profile opens ---
  function drawFailed(list) {
    if (list.getAttribute("data-drawn") !== null) { return; }
    list.setAttribute("data-drawn", "");
    var sid = list.getAttribute("data-runs-of");
    (failedOf.get(sid) || []).forEach(function (run) {
      var caseId = cell(run, "case_id"), runId = cell(run, "run_id"), comments = cell(run, "comments");
      var a = node("a", {"class": "mono"}, [caseId]);
      a.setAttribute("href", "#case-" + caseId);
      a.addEventListener("click", function () { showCase(caseId, sid, runId); });
      list.appendChild(node("li", {}, [a, " " + runId + ": " + cell(run, "classification") + " (" +
        cell(run, "clipped_score") + ")" + (comments === "" ? "" : " \u2014 " + comments)]));
    });
  }
  document.querySelectorAll("details.profile-card").forEach(function (profile) {
    profile.addEventListener("toggle", function () {
      if (profile.open) { profile.querySelectorAll("ul.failed-runs[data-runs-of]").forEach(drawFailed); }
    });
  });

  function apply() {
    var kind = value("filter-kind"), provider = value("filter-provider");
    var shown = 0, total = 0;
    Object.keys(facets).forEach(function (sid) {
      var f = facets[sid];
      f.visible = (!kind || f.kind === kind) && (!provider || f.provider === provider);
      total += 1; shown += f.visible ? 1 : 0;
    });
    document.querySelectorAll("[data-subject]").forEach(function (el) {
      var f = facets[el.getAttribute("data-subject")];
      if (!f || el.closest("#explorer-table")) { return; }
      el.hidden = !f.visible;
    });
    var count = document.getElementById("filter-count");
    if (count) { count.textContent = shown + " of " + total + " subjects shown"; }
    drawExplorer();
  }
  document.querySelectorAll("#filters select, #explorer-filters select").forEach(function (s) {
    s.addEventListener("change", apply);
  });
  function openTarget() {
    var id = "";
    try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { id = ""; }
    if (id.indexOf("case-") === 0) {
      var row = showCase(id.slice(5));
      if (row) { row.scrollIntoView({block: "center"}); }
      return;
    }
    var target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS") { target.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  apply();
  openTarget();
})();
