// The deals table: filter by profile, category and buying format; sort by a column; page.
(function () {
  "use strict";
  var table = document.getElementById("deals-table");
  if (!table) { return; }
  var tbody = table.tBodies[0];
  var rows = Array.prototype.slice.call(tbody.rows);
  var form = document.getElementById("deal-filters");
  var info = document.getElementById("deal-count");
  var pageInfo = document.getElementById("page-info");
  var prev = document.getElementById("page-prev");
  var next = document.getElementById("page-next");
  var size = parseInt(table.getAttribute("data-page-size"), 10) || 50;
  var page = 0;
  rows.forEach(function (row, i) { row.setAttribute("data-order", String(i)); });

  function wanted(row) {
    var f = form.elements;
    return row.getAttribute("data-profile") === f.profile.value &&
      (f.category.value === "all" || row.getAttribute("data-category") === f.category.value) &&
      (f.buying.value === "all" || row.getAttribute("data-buying") === f.buying.value);
  }

  function render() {
    var shown = rows.filter(wanted);
    var pages = Math.max(1, Math.ceil(shown.length / size));
    page = Math.min(Math.max(page, 0), pages - 1);
    rows.forEach(function (row) { row.hidden = true; });
    shown.slice(page * size, (page + 1) * size).forEach(function (row) { row.hidden = false; });
    info.textContent = shown.length + " deal" + (shown.length === 1 ? "" : "s") + " match.";
    pageInfo.textContent = "Page " + (page + 1) + " of " + pages;
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }

  function value(row, col) {
    var cell = row.cells[col];
    var v = cell.getAttribute("data-v");
    if (v === null) { return cell.textContent.trim().toLowerCase(); }
    return v === "" ? null : parseFloat(v);
  }

  function sortBy(th) {
    var col = th.cellIndex;
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    rows.sort(function (a, b) {
      var x = value(a, col), y = value(b, col);
      if (x === y) { return a.getAttribute("data-order") - b.getAttribute("data-order"); }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (row) { tbody.appendChild(row); });
    page = 0;
    render();
  }

  Array.prototype.forEach.call(table.querySelectorAll("th button"), function (button) {
    button.addEventListener("click", function () { sortBy(button.parentNode); });
  });
  form.addEventListener("change", function () { page = 0; render(); });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  prev.addEventListener("click", function () { page -= 1; render(); });
  next.addEventListener("click", function () { page += 1; render(); });
  document.getElementById("deal-controls").hidden = false;
  render();
})();
