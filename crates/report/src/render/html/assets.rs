//! The page's style and script, inlined into `report.html` (the page loads nothing else).

/// The style sheet.
pub const CSS: &str = r##"
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:1.6em;margin:.4em 0}
h2{font-size:1.3em;margin:1.6em 0 .5em;border-bottom:1px solid #d8dde6;padding-bottom:.2em}
h3{font-size:1.1em;margin:1.2em 0 .4em}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eef1f5;padding:0 3px;border-radius:3px}
.table-wrap{overflow-x:auto}
code.long{white-space:normal;overflow-wrap:anywhere;display:inline-block;min-width:28em}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:13px}
th,td{border:1px solid #d8dde6;padding:3px 8px;text-align:left;vertical-align:top;white-space:nowrap}
th{background:#eef1f5;cursor:pointer;user-select:none;position:relative;padding-right:18px}
th[data-sort=asc]::after{content:"\25B2";position:absolute;right:4px;font-size:9px;top:7px}
th[data-sort=desc]::after{content:"\25BC";position:absolute;right:4px;font-size:9px;top:7px}
tbody tr:nth-child(even){background:#f3f5f8}
tbody tr:hover{background:#e6eefc}
.off{display:none !important}
#picker{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid #d8dde6;padding:6px 24px;display:flex;flex-wrap:wrap;gap:10px 24px;font-size:13px}
#picker fieldset{border:0;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:2px 10px;align-items:center}
#picker legend{font-weight:600;float:left;margin-right:6px;padding:0}
#picker label{white-space:nowrap;cursor:pointer}
#picker button{font-size:12px}
nav.toc{font-size:13px;margin:.5em 0 1em}
nav.toc a{margin-right:10px}
figure.plot{margin:.5em 0 1em}
figure.plot svg{max-width:100%;height:auto;background:#fff;border:1px solid #e3e7ee}
figure.plot figcaption{font-size:12px;color:#5a6375}
svg.chart text{font:12px system-ui,sans-serif;fill:#1d2330}
svg.chart .title{font-weight:600;font-size:13px}
svg.chart .tick,svg.chart .note{fill:#5a6375;font-size:11px}
svg.chart .grid{stroke:#e3e7ee}
svg.chart .ref{stroke:#888;stroke-dasharray:4 3}
svg.chart .pt line{stroke-width:2}
svg.chart .pt:hover circle{r:6;stroke:#000}
#tip{position:fixed;pointer-events:none;background:#1d2330;color:#fff;padding:4px 8px;border-radius:4px;font-size:12px;z-index:10;max-width:420px}
.criterion-link{font-size:13px}
"##;

/// The script: sortable tables, the run and profile picker, numbers on hover.
pub const JS: &str = r##"
(function () {
  "use strict";
  var UNITS = { "ns": 1, "\u00b5s": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9 };
  // A cell's sort key: its first number (a time in ns when it has a unit), else null.
  function key(text) {
    var m = text.replace(/,/g, "").match(/(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*(ns|\u00b5s|us|ms|s)?(?![A-Za-z])/);
    if (!m) { return null; }
    var v = parseFloat(m[1]);
    return m[2] ? v * UNITS[m[2]] : v;
  }
  function sortBy(th) {
    var table = th.closest("table");
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var dir = th.getAttribute("data-sort") === "asc" ? "desc" : "asc";
    table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("data-sort"); });
    th.setAttribute("data-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[index] ? a.cells[index].textContent : "";
      var y = b.cells[index] ? b.cells[index].textContent : "";
      var kx = key(x), ky = key(y);
      var c = (kx !== null && ky !== null) ? kx - ky : x.localeCompare(y);
      return dir === "asc" ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable th").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  function picked(attr) {
    var set = {};
    document.querySelectorAll("#picker input[" + attr + "]").forEach(function (i) {
      set[i.getAttribute(attr)] = i.checked;
    });
    return set;
  }
  function apply() {
    var runs = picked("data-run"), profiles = picked("data-profile");
    document.querySelectorAll("main [data-run], main [data-profile]").forEach(function (el) {
      var r = el.getAttribute("data-run"), p = el.getAttribute("data-profile");
      var off = (r !== null && runs[r] === false) || (p !== null && profiles[p] === false);
      el.classList.toggle("off", off);
    });
  }
  document.querySelectorAll("#picker input").forEach(function (i) {
    i.addEventListener("change", apply);
  });
  document.querySelectorAll("#picker button[data-all]").forEach(function (b) {
    b.addEventListener("click", function () {
      var attr = b.getAttribute("data-all"), on = b.getAttribute("data-on") === "1";
      document.querySelectorAll("#picker input[" + attr + "]").forEach(function (i) { i.checked = on; });
      apply();
    });
  });
  var tip = document.getElementById("tip");
  document.querySelectorAll("svg [data-tip]").forEach(function (el) {
    el.addEventListener("mouseenter", function () {
      tip.textContent = el.getAttribute("data-tip");
      tip.hidden = false;
    });
    el.addEventListener("mousemove", function (e) {
      tip.style.left = (e.clientX + 12) + "px";
      tip.style.top = (e.clientY + 12) + "px";
    });
    el.addEventListener("mouseleave", function () { tip.hidden = true; });
  });
  apply();
})();
"##;
