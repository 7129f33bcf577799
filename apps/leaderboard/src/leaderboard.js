// get_benchmark: the leaderboard page as a table sortable by any column, with the
// filters get_benchmark takes applied in place: open code and a parameter bound from
// the rows, extra training data from the rows' flags in the result's `_meta` (the view's
// data, pwc_local/server/views.py; get_benchmark takes no such argument to ask again
// with). The record (pwc_local/present/benchmarks.py `Leaderboard`): page, next_page,
// total, matched, benchmark {name, slug, ...}, directions {metric: higher | lower},
// evaluations {columns, rows} (columns empty in every row are left out), metric_note.

import { el, number, parameters, parseParameters } from "./dom.js";
import { metricLabel, sortableTable, sortKey } from "./table.js";

const FIXED = new Set([
  "task_rank",
  "model",
  "task",
  "benchmark",
  "protocol",
  "other_metrics",
  "parameters",
  "open",
  "extra_data",
  "paper",
  "paper_title",
]);
const HEADERS = { task_rank: "#", other_metrics: "other metrics", extra_data: "extra data" };
const NO_FLAGS = "this host passed no extra-data flags";

export function isLeaderboard(record) {
  return Boolean(record && record.benchmark && typeof record.total === "number" && "page" in record);
}

function yesNo(value) {
  return value === true ? "yes" : value === false ? "no" : "";
}

/**
 * The view of a get_benchmark record; `draw()` fills the table (again after a change).
 * `data`: the result's view data, `{extra_data: [flag per row]}` where the host passed it.
 */
export function renderLeaderboard(record, papers, data = null) {
  const bench = record.benchmark;
  const table = record.evaluations || { columns: [], rows: [] };
  const columns = table.columns;
  const at = (name) => columns.indexOf(name);
  const directions = record.directions || {};
  const flags = Array.isArray(data?.extra_data) && data.extra_data.length === table.rows.length ? data.extra_data : null;
  const extra = new Map(flags ? table.rows.map((row, i) => [row, flags[i]]) : []);
  const names = columns.filter((name) => name !== "paper_title" || at("paper") < 0);
  // The rows' extra-data flags as a column of their own, after `open`, when one is set.
  if (flags?.includes(true)) names.splice(at("open") >= 0 ? names.indexOf("open") + 1 : names.length, 0, "extra_data");
  const state = { open: false, extra: false, bound: null };

  const head = el(
    "header",
    {},
    el("h1", {}, bench.name),
    el(
      "p",
      { class: "sub" },
      [bench.full_name, bench.split ? `split ${bench.split}` : null, bench.papers ? `${bench.papers.toLocaleString("en-US")} papers` : null]
        .filter(Boolean)
        .join(" · "),
    ),
  );
  const status = el("p", { class: "scan", "aria-live": "polite" });
  const controls = el("div", { class: "filters" });
  if (at("open") >= 0) {
    controls.append(
      el(
        "label",
        {},
        el("input", {
          type: "checkbox",
          name: "open",
          onchange: (event) => {
            state.open = event.target.checked;
            draw();
          },
        }),
        " open code only",
      ),
    );
  }
  // Rows without a flag count as without extra data, as sota_history counts them.
  controls.append(
    el(
      "label",
      { class: flags ? null : "disabled", title: flags ? null : NO_FLAGS },
      el("input", {
        type: "checkbox",
        name: "extra_data",
        disabled: !flags,
        onchange: (event) => {
          state.extra = event.target.checked;
          draw();
        },
      }),
      " no extra training data",
      flags ? null : el("span", { class: "why" }, ` (${NO_FLAGS})`),
    ),
  );
  if (at("parameters") >= 0) {
    const bound = el("input", {
      type: "text",
      name: "max_parameters",
      placeholder: "e.g. 7B",
      size: 7,
      "aria-label": "at most this many parameters",
      oninput: () => {
        state.bound = parseParameters(bound.value);
        bound.classList.toggle("invalid", bound.value.trim() !== "" && state.bound === null);
        draw();
      },
    });
    controls.append(el("label", {}, "parameters ≤ ", bound));
  }

  const sortValue = (row, name) => (name === "extra_data" ? extra.get(row) : row[at(name)]);

  function cell(row, name) {
    const value = row[at(name)];
    if (name === "paper") {
      const title = at("paper_title") >= 0 ? row[at("paper_title")] : null;
      return el("td", { class: "paper-cell" }, value ? papers.link(title, value) : title || "");
    }
    if (name === "parameters") return el("td", { class: "num" }, parameters(value));
    if (name === "open") return el("td", {}, yesNo(value));
    if (name === "extra_data") return el("td", {}, yesNo(extra.get(row)));
    if (typeof value === "number") return el("td", { class: "num" }, number(value));
    if (typeof sortKey(value) === "number") return el("td", { class: "num" }, value);
    return el("td", {}, value ?? "");
  }

  const grid = sortableTable({
    columns: names.map((name) => {
      const metric = !FIXED.has(name);
      return {
        name,
        label: metric ? metricLabel(name, directions[name]) : HEADERS[name] || name,
        num: metric || name === "parameters" || name === "task_rank",
        // A metric sorts best first (higher unless the record says lower).
        better: metric ? directions[name] || "higher" : null,
      };
    }),
    value: sortValue,
    cell,
    actions: papers.canCall && at("paper") >= 0 ? (row) => papers.buttons(row[at("paper")]) : null,
  });

  function kept(row) {
    if (state.open && row[at("open")] !== true) return false;
    if (state.extra && extra.get(row) === true) return false;
    if (state.bound !== null) {
      const count = row[at("parameters")];
      if (typeof count !== "number" || count > state.bound) return false;
    }
    return true;
  }

  function draw() {
    const rows = grid.draw(table.rows.filter(kept));
    const count = table.rows.length;
    let line = rows.length === count ? `${count} rows` : `${rows.length} of ${count} rows`;
    line += ` on page ${record.page}; ${record.total.toLocaleString("en-US")} in the leaderboard`;
    if (record.matched !== undefined && record.matched !== null) line += `, ${record.matched.toLocaleString("en-US")} matched`;
    if (record.next_page) line += ` · more on page ${record.next_page}`;
    status.textContent = `${line}. # is the rank within the row's own task.`;
  }

  const body = table.rows.length ? [controls, grid.node] : [el("p", { class: "empty" }, "No rows on this page.")];
  const node = el(
    "div",
    { class: "leaderboard" },
    head,
    status,
    ...body,
    record.metric_note ? el("p", { class: "note" }, `Note: ${record.metric_note}`) : null,
  );
  return { node, draw: table.rows.length ? draw : () => (status.textContent = `${record.total} rows in the leaderboard.`) };
}
