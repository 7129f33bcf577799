// results_table: the rows of one leaderboard to put in a paper, as a table sortable by
// any column, each metric's direction in its header and its best value marked, the
// settings of the group shown (or each row's, when all groups are) and the model
// filters asked for, a paper opened through the host, and the BibTeX of the keys. The
// structured half (pwc_local/present/results.py `ResultsTableResult`: head, table,
// bib) holds the table only as written in its format; the rows come as data in the
// result's `_meta` (`view_rows`: metrics [{name, better, assumed}], rows [{rank, model,
// paper, ref, date, values, settings, key}]). Where the host lets the view call tools,
// another settings group is one click away (results_table again, through the host).

import { el, number } from "./dom.js";
import { metricLabel, sortableTable } from "./table.js";

const ALL = "all"; // `settings`: every group, each row naming its own

export function isResultsTable(record) {
  return Boolean(record && record.head && typeof record.head.benchmark === "string" && typeof record.table === "string");
}

function count(value, what) {
  return `${value.toLocaleString("en-US")} ${what}${value === 1 ? "" : "s"}`;
}

/** The other settings groups, with their sizes; each a button asking for it where the
 * host lets the view call results_table again (`rerun`). */
function groups(head, rerun) {
  const others = head.others || [];
  if (!others.length) return null;
  const item = (settings, label) =>
    rerun
      ? el("button", { type: "button", class: "group", "data-settings": settings, onclick: () => rerun({ settings }) }, label)
      : label;
  const parts = others.map((group) => item(group.settings, `${group.settings} (${group.results.toLocaleString("en-US")})`));
  if (rerun && head.settings !== ALL) parts.push(item(ALL, "all settings"));
  const where = head.settings === ALL ? "Settings groups" : "Other settings, not compared";
  return el("p", { class: "note groups" }, `${where}: `, ...parts.flatMap((part, i) => (i ? ["; ", part] : [part])));
}

/** The value of each metric that is best in the rows (higher or lower, as it says). */
function bests(metrics, rows) {
  return metrics.map((metric, i) => {
    const values = rows.map((row) => row.values[i]).filter((value) => typeof value === "number");
    if (!values.length) return null;
    return metric.better === "lower" ? Math.min(...values) : Math.max(...values);
  });
}

/**
 * The view of a results_table result: `record` its structured half, `data` the rows the
 * host passed in the result's `_meta` (null: none, then the table as written), `rerun`
 * asks for results_table again with changes to its arguments (null: the host cannot).
 */
export function renderResultsTable(record, papers, data = null, rerun = null) {
  const head = record.head;
  const every = head.settings === ALL;
  const about = [
    head.metrics.join(", "),
    every ? "all settings" : head.settings,
    head.filters?.length ? head.filters.join(", ") : null,
    head.as_of ? `as of ${head.as_of}` : null,
  ].filter(Boolean);
  const scan = [`${head.shown.toLocaleString("en-US")} of ${count(head.comparable, "comparable result")}, best first`];
  if (head.rows_read < head.rows_total) {
    scan.push(`only ${head.rows_read.toLocaleString("en-US")} of ${head.rows_total.toLocaleString("en-US")} rows read`);
  }
  const top = el(
    "header",
    {},
    el("h1", {}, head.benchmark),
    el("p", { class: "sub" }, about.join(" · ")),
    el("p", { class: "scan" }, scan.join(" · ")),
    groups(head, rerun),
    head.missing?.length ? el("p", { class: "note" }, `No row in these settings for: ${head.missing.join(", ")}`) : null,
  );
  const bib = record.bib
    ? el("details", { class: "bib" }, el("summary", {}, "BibTeX of the keys"), el("pre", {}, record.bib))
    : null;
  const rows = Array.isArray(data?.rows) && Array.isArray(data?.metrics) ? data.rows : null;
  if (!head.shown) {
    const none = el("p", { class: "empty" }, "No result in these settings.");
    return { node: el("div", { class: "results" }, top, none), draw: null };
  }
  if (!rows) {
    // A host that passes no `_meta`: the table as results_table wrote it.
    const note = el("p", { class: "note" }, "This host passed no rows to sort; the table as written:");
    return { node: el("div", { class: "results" }, top, note, el("pre", { class: "written" }, record.table), bib), draw: null };
  }

  const metrics = data.metrics;
  const best = bests(metrics, rows);
  const columns = [
    { name: "rank", label: "#", num: true },
    { name: "model", label: "model" },
    { name: "paper", label: "paper" },
    { name: "date", label: "date" },
    ...metrics.map((metric, i) => ({
      name: `metric:${i}`,
      label: metricLabel(metric.name, metric.better) + (metric.assumed ? " (assumed)" : ""),
      num: true,
      better: metric.better,
    })),
    ...(every ? [{ name: "settings", label: "settings" }] : []),
    { name: "key", label: "key" },
  ];
  const metricAt = (name) => (name.startsWith("metric:") ? Number(name.slice(7)) : -1);
  const value = (row, name) => {
    const i = metricAt(name);
    if (i >= 0) return row.values[i];
    return name === "paper" ? row.paper || row.ref : row[name];
  };
  function cell(row, name) {
    const i = metricAt(name);
    if (i >= 0) {
      const shown = row.values[i];
      const top = typeof shown === "number" && shown === best[i];
      return el(
        "td",
        { class: top ? "num best" : "num", title: top ? `best ${metrics[i].name}` : null },
        number(shown),
      );
    }
    if (name === "paper") return el("td", { class: "paper-cell" }, row.paper || row.ref ? papers.link(row.paper, row.ref) : "");
    if (name === "rank") return el("td", { class: "num" }, row.rank ?? "");
    if (name === "date") return el("td", { class: "date" }, row.date ?? "");
    if (name === "key") return el("td", { class: "key" }, row.key ?? "");
    return el("td", { class: name }, row[name] ?? "");
  }
  const grid = sortableTable({
    columns,
    value,
    cell,
    actions: papers.canCall ? (row) => papers.buttons(row.ref) : null,
  });
  const node = el(
    "div",
    { class: "results" },
    top,
    grid.node,
    el("p", { class: "note" }, "The best value of each metric is in bold."),
    bib,
  );
  return { node, draw: () => grid.draw(rows) };
}
