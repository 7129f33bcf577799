// get_benchmark: the leaderboard page as a table sortable by any column, with the
// filters get_benchmark takes that the rows carry (open code, a parameter bound)
// applied in place. The record (pwc_local/present/benchmarks.py `Leaderboard`): page,
// next_page, total, matched, benchmark {name, slug, ...}, directions {metric: higher |
// lower}, evaluations {columns, rows} (columns empty in every row are left out),
// metric_note.

import { el, number, parameters, parseParameters } from "./dom.js";

const FIXED = new Set([
  "task_rank",
  "model",
  "task",
  "benchmark",
  "protocol",
  "other_metrics",
  "parameters",
  "open",
  "paper",
  "paper_title",
]);
const HEADERS = { task_rank: "#", other_metrics: "other metrics" };
const ARROWS = { higher: " ↑", lower: " ↓" };

export function isLeaderboard(record) {
  return Boolean(record && record.benchmark && typeof record.total === "number" && "page" in record);
}

/** What a cell sorts by: numbers, and numbers written as text ("98.6%", "1,000"). */
function sortKey(value) {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "string" && /^[-+]?[\d,]*\.?\d+\s*%?$/.test(value.trim())) {
    return Number(value.replace(/[,%\s]/g, ""));
  }
  return value;
}

function compare(a, b) {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(b) - Number(a);
  return String(a).localeCompare(String(b), "en", { numeric: true, sensitivity: "base" });
}

/** The view of a get_benchmark record; `draw()` fills the table (again after a change). */
export function renderLeaderboard(record, papers) {
  const bench = record.benchmark;
  const table = record.evaluations || { columns: [], rows: [] };
  const columns = table.columns;
  const at = (name) => columns.indexOf(name);
  const directions = record.directions || {};
  const shown = columns.filter((name) => name !== "paper_title" || at("paper") < 0);
  const state = { sort: null, descending: false, open: false, bound: null };

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
  const thead = el("thead");
  const tbody = el("tbody");
  const grid = el("div", { class: "scroll" }, el("table", { class: "board" }, thead, tbody));

  function header(name) {
    const metric = !FIXED.has(name);
    const label = (HEADERS[name] || (name === "paper" ? "paper" : name)) + (metric ? ARROWS[directions[name]] || "" : "");
    const sorted = state.sort === name;
    const button = el(
      "button",
      {
        type: "button",
        onclick: () => {
          if (state.sort === name) state.descending = !state.descending;
          else {
            state.sort = name;
            // A metric sorts best first; anything else A to Z, smallest first.
            state.descending = metric && directions[name] !== "lower";
          }
          draw();
        },
      },
      label,
    );
    return el(
      "th",
      {
        "data-column": name,
        class: metric || name === "parameters" || name === "task_rank" ? "num" : null,
        "aria-sort": sorted ? (state.descending ? "descending" : "ascending") : "none",
      },
      button,
    );
  }

  function cell(name, row) {
    const value = row[at(name)];
    if (name === "paper") {
      const title = at("paper_title") >= 0 ? row[at("paper_title")] : null;
      return el("td", { class: "paper-cell" }, value ? papers.link(title, value) : title || "");
    }
    if (name === "parameters") return el("td", { class: "num" }, parameters(value));
    if (name === "open") return el("td", {}, value === true ? "yes" : value === false ? "no" : "");
    if (typeof value === "number") return el("td", { class: "num" }, number(value));
    if (typeof sortKey(value) === "number") return el("td", { class: "num" }, value);
    return el("td", {}, value ?? "");
  }

  function kept(row) {
    if (state.open && row[at("open")] !== true) return false;
    if (state.bound !== null) {
      const count = row[at("parameters")];
      if (typeof count !== "number" || count > state.bound) return false;
    }
    return true;
  }

  function draw() {
    let rows = table.rows.filter(kept);
    if (state.sort) {
      const i = at(state.sort);
      const keyed = rows.map((row) => [sortKey(row[i]), row]);
      // Empty cells last either way.
      keyed.sort(([a], [b]) =>
        a === null || b === null ? (a === null) - (b === null) : (state.descending ? -1 : 1) * compare(a, b),
      );
      rows = keyed.map(([, row]) => row);
    }
    const withActions = papers.canCall && at("paper") >= 0;
    thead.replaceChildren(el("tr", {}, shown.map(header), withActions ? el("th", {}, "") : null));
    tbody.replaceChildren(
      ...rows.map((row) =>
        el("tr", {}, shown.map((name) => cell(name, row)), withActions ? el("td", {}, papers.buttons(row[at("paper")])) : null),
      ),
    );
    const count = table.rows.length;
    let line = rows.length === count ? `${count} rows` : `${rows.length} of ${count} rows`;
    line += ` on page ${record.page}; ${record.total.toLocaleString("en-US")} in the leaderboard`;
    if (record.matched !== undefined && record.matched !== null) line += `, ${record.matched.toLocaleString("en-US")} matched`;
    if (record.next_page) line += ` · more on page ${record.next_page}`;
    status.textContent = `${line}. # is the rank within the row's own task.`;
  }

  const body = table.rows.length
    ? [controls, grid]
    : [el("p", { class: "empty" }, "No rows on this page.")];
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
