// A table sortable by any column, for get_benchmark's leaderboard and results_table's
// rows: a click on a header sorts by that column (a metric best first, anything else
// A to Z, smallest first), a second click reverses; empty cells go last either way.

import { el } from "./dom.js";

const ARROWS = { higher: " ↑", lower: " ↓" };

/** A metric's header: its name and the arrow of its better direction. */
export function metricLabel(name, better) {
  return name + (ARROWS[better] || "");
}

/** What a cell sorts by: numbers, and numbers written as text ("98.6%", "1,000"). */
export function sortKey(value) {
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

/**
 * The table's frame and `draw(rows)`, which fills it with `rows` in the chosen order
 * and returns them in that order.
 *
 * columns: [{ name, label, num (right-aligned), better ("higher" | "lower": a metric,
 * sorted best first) }]; value(row, name): what a cell sorts by; cell(row, name): its
 * <td>; actions(row): the content of a last, unnamed cell, or null for none.
 */
export function sortableTable({ columns, value, cell, actions = null }) {
  const state = { sort: null, descending: false };
  const thead = el("thead");
  const tbody = el("tbody");
  const node = el("div", { class: "scroll" }, el("table", { class: "board" }, thead, tbody));
  let current = [];

  function header(column) {
    const sorted = state.sort === column.name;
    const button = el(
      "button",
      {
        type: "button",
        onclick: () => {
          if (state.sort === column.name) state.descending = !state.descending;
          else {
            state.sort = column.name;
            state.descending = Boolean(column.better) && column.better !== "lower";
          }
          draw(current);
        },
      },
      column.label,
    );
    return el(
      "th",
      {
        "data-column": column.name,
        class: column.num ? "num" : null,
        "aria-sort": sorted ? (state.descending ? "descending" : "ascending") : "none",
      },
      button,
    );
  }

  function draw(rows) {
    current = rows;
    let ordered = rows;
    if (state.sort) {
      const keyed = rows.map((row) => [sortKey(value(row, state.sort)), row]);
      keyed.sort(([a], [b]) =>
        a === null || b === null ? (a === null) - (b === null) : (state.descending ? -1 : 1) * compare(a, b),
      );
      ordered = keyed.map(([, row]) => row);
    }
    thead.replaceChildren(el("tr", {}, columns.map(header), actions ? el("th", {}, "") : null));
    tbody.replaceChildren(
      ...ordered.map((row) =>
        el("tr", {}, columns.map((column) => cell(row, column.name)), actions ? el("td", {}, actions(row)) : null),
      ),
    );
    return ordered;
  }

  return { node, draw };
}
