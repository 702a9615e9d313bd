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
