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
// and outcome; a case row stays when it matches every filter.
(function () {
  var facets = {};
  document.querySelectorAll("#subject-facets [data-facet]").forEach(function (f) {
    facets[f.getAttribute("data-facet")] = {kind: f.getAttribute("data-kind"), provider: f.getAttribute("data-provider")};
  });
  function value(id) { var el = document.getElementById(id); return el ? el.value : ""; }
  function apply() {
    var kind = value("filter-kind"), provider = value("filter-provider"), only = value("explorer-subject");
    var shown = 0, total = 0;
    Object.keys(facets).forEach(function (sid) {
      var f = facets[sid];
      f.visible = (!kind || f.kind === kind) && (!provider || f.provider === provider);
      total += 1; shown += f.visible ? 1 : 0;
    });
    document.querySelectorAll("[data-subject]").forEach(function (el) {
      var f = facets[el.getAttribute("data-subject")];
      if (!f) { return; }
      var inExplorer = !!el.closest("#explorer-table");
      el.hidden = !f.visible || (inExplorer && !!only && el.getAttribute("data-subject") !== only);
    });
    var family = value("explorer-family"), difficulty = value("explorer-difficulty"), type = value("explorer-type");
    var tag = value("explorer-tag"), outcome = value("explorer-outcome"), cases = 0, all = 0;
    document.querySelectorAll("#explorer-table tr.case-row").forEach(function (row) {
      var ok = (!family || row.getAttribute("data-family") === family)
        && (!difficulty || row.getAttribute("data-difficulty") === difficulty)
        && (!type || row.getAttribute("data-type") === type)
        && (!tag || row.getAttribute("data-tags").indexOf(" " + tag + " ") >= 0);
      if (ok && outcome === "not-pass") {
        ok = Array.prototype.some.call(row.querySelectorAll("td[data-not-pass]"), function (td) { return !td.hidden; });
      }
      row.hidden = !ok; all += 1; cases += ok ? 1 : 0;
    });
    var count = document.getElementById("filter-count");
    if (count) { count.textContent = shown + " of " + total + " subjects shown"; }
    var caseCount = document.getElementById("explorer-count");
    if (caseCount) { caseCount.textContent = cases + " of " + all + " cases shown"; }
  }
  document.querySelectorAll("#subject-filters select, #explorer-filters select").forEach(function (s) {
    s.addEventListener("change", apply);
  });
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (target && target.tagName === "DETAILS") { target.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
  apply();
})();
