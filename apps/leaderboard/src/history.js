// sota_history: the running best by paper date as a step line, one point per new best.
// The record (pwc_local/present/history.py): scan, series {benchmark, metric, better,
// as_of}, steps [{date, model, paper, ref, score, gain}], the latest 100 steps.

import { el, number, signed, svg } from "./dom.js";
import { paperUrl } from "./papers.js";

const HEIGHT = 260;
const MARGIN = { top: 14, right: 18, bottom: 38, left: 58 };
const DAY = 86_400_000;

export function isHistory(record) {
  return Boolean(record && Array.isArray(record.steps) && record.series && record.scan);
}

function time(date) {
  const value = Date.parse(`${String(date).slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(value) ? null : value;
}

/** About `count` round tick values covering [low, high]. */
function ticks(low, high, count) {
  const span = high - low || Math.abs(high) || 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const out = [];
  for (let t = Math.ceil(low / step) * step; t <= high + step * 1e-9; t += step) {
    out.push(+t.toPrecision(12));
  }
  return out;
}

function direction(better) {
  if (better === "lower") return "lower is better ↓";
  if (better === "assumed higher") return "higher is better ↑ (assumed)";
  return "higher is better ↑";
}

/** Why there is nothing to draw, in the words of the text block. */
function emptyReason(record) {
  const { scan, series } = record;
  if (!series.metric) return "The leaderboard holds no result to follow.";
  if (scan.after_as_of) return `No dated result on or before ${series.as_of}.`;
  if (scan.undated && !scan.results) {
    return `No dated result: ${scan.undated.toLocaleString("en-US")} results have no date.`;
  }
  return `No dated result has a value for ${series.metric}.`;
}

function summary(record) {
  const { scan, series } = record;
  const parts = [`${scan.results.toLocaleString("en-US")} dated results`];
  parts.push(`${scan.steps.toLocaleString("en-US")} new bests`);
  const left = [
    [scan.undated, "undated"],
    [scan.without_metric, `without ${series.metric}`],
    [scan.after_as_of, `after ${series.as_of}`],
  ].filter(([count]) => count);
  if (left.length) {
    parts.push(`left out ${left.map(([c, why]) => `${c.toLocaleString("en-US")} ${why}`).join(", ")}`);
  }
  if (scan.rows_read < scan.rows_total) {
    parts.push(`only ${scan.rows_read.toLocaleString("en-US")} of ${scan.rows_total.toLocaleString("en-US")} rows read`);
  }
  return parts.join(" · ");
}

/**
 * The filters sota_history takes (open code, extra training data, a parameter bound),
 * when the host lets the view call it again: `rerun(changes)` asks for the series with
 * `changes` to the call's arguments `input`.
 */
function historyFilters({ input, rerun }) {
  const bound = el("input", {
    type: "text",
    name: "max_parameters",
    placeholder: "e.g. 7B",
    size: 7,
    value: input.max_parameters || "",
    "aria-label": "at most this many parameters",
    onchange: () => rerun({ max_parameters: bound.value.trim() || null }),
  });
  return el(
    "div",
    { class: "filters" },
    el(
      "label",
      {},
      el("input", {
        type: "checkbox",
        name: "open",
        checked: input.is_open === true,
        onchange: (event) => rerun({ is_open: event.target.checked || null }),
      }),
      " open code only",
    ),
    el(
      "label",
      {},
      el("input", {
        type: "checkbox",
        name: "extra_data",
        checked: input.extra_data === false,
        onchange: (event) => rerun({ extra_data: event.target.checked ? false : null }),
      }),
      " no extra training data",
    ),
    el("label", {}, "parameters ≤ ", bound),
  );
}

/** The view of a sota_history record: heading, filters, chart (or why none), the steps. */
export function renderHistory(record, papers, filters = null) {
  const { series, steps } = record;
  const head = el(
    "header",
    {},
    el("h1", {}, series.benchmark),
    el(
      "p",
      { class: "sub" },
      series.metric ? `${series.metric}, ${direction(series.better)}` : "",
      series.as_of ? ` · as of ${series.as_of}` : "",
    ),
    el("p", { class: "scan" }, summary(record)),
    filters ? historyFilters(filters) : null,
  );
  const dated = steps.filter((step) => time(step.date) !== null);
  if (!dated.length) {
    const empty = el("p", { class: "empty" }, emptyReason(record));
    return { node: el("div", { class: "history" }, head, empty), draw: null };
  }
  const figure = el("figure", { class: "chart" });
  const tooltip = el("div", { class: "tooltip", role: "status", hidden: true });
  figure.append(tooltip);
  const draw = () => drawChart(figure, tooltip, record, dated, papers);
  const hidden = steps.length - dated.length;
  const notShown = record.scan.steps - steps.length;
  return {
    node: el(
      "div",
      { class: "history" },
      head,
      figure,
      notShown > 0 ? el("p", { class: "note" }, `The first ${notShown} new bests are not shown.`) : null,
      hidden ? el("p", { class: "note" }, `${hidden} steps without a readable date are not drawn.`) : null,
      stepTable(steps, series, papers),
    ),
    draw,
  };
}

function drawChart(figure, tooltip, record, steps, papers) {
  const { series } = record;
  const width = Math.max(320, Math.floor(figure.clientWidth || 640));
  const inner = { w: width - MARGIN.left - MARGIN.right, h: HEIGHT - MARGIN.top - MARGIN.bottom };
  const times = steps.map((s) => time(s.date));
  const end = Math.max(times.at(-1), time(series.as_of) ?? -Infinity);
  let [t0, t1] = [times[0], end];
  if (t1 - t0 < DAY * 30) [t0, t1] = [t0 - DAY * 180, t1 + DAY * 180];
  const tPad = (t1 - t0) * 0.04;
  [t0, t1] = [t0 - tPad, t1 + tPad];
  const scores = steps.map((s) => s.score);
  let [y0, y1] = [Math.min(...scores), Math.max(...scores)];
  if (y1 - y0 < 1e-9) [y0, y1] = [y0 - 1, y1 + 1];
  const yPad = (y1 - y0) * 0.1;
  [y0, y1] = [y0 - yPad, y1 + yPad];
  const x = (t) => MARGIN.left + ((t - t0) / (t1 - t0)) * inner.w;
  const y = (v) => MARGIN.top + (1 - (v - y0) / (y1 - y0)) * inner.h;

  const chart = svg("svg", {
    width,
    height: HEIGHT,
    viewBox: `0 0 ${width} ${HEIGHT}`,
    role: "img",
    "aria-label": `${series.metric} of ${series.benchmark}: each new best by paper date`,
  });
  const grid = svg("g", { class: "grid" });
  for (const v of ticks(y0, y1, 5)) {
    grid.append(
      svg("line", { x1: MARGIN.left, x2: width - MARGIN.right, y1: y(v), y2: y(v) }),
      svg("text", { x: MARGIN.left - 6, y: y(v), class: "tick y", "dominant-baseline": "middle" }, number(v)),
    );
  }
  const firstYear = new Date(t0).getUTCFullYear();
  const lastYear = new Date(t1).getUTCFullYear();
  const every = Math.max(1, Math.ceil((lastYear - firstYear + 1) / Math.max(2, Math.floor(inner.w / 70))));
  for (let year = firstYear; year <= lastYear + 1; year += 1) {
    const t = Date.UTC(year, 0, 1);
    if (t < t0 || t > t1 || (year - firstYear) % every) continue;
    grid.append(
      svg("line", { class: "year", x1: x(t), x2: x(t), y1: MARGIN.top + inner.h, y2: MARGIN.top + inner.h + 5 }),
      svg("text", { x: x(t), y: MARGIN.top + inner.h + 18, class: "tick x" }, String(year)),
    );
  }
  const axis = svg(
    "g",
    { class: "axis" },
    svg("line", { x1: MARGIN.left, x2: MARGIN.left + inner.w, y1: MARGIN.top + inner.h, y2: MARGIN.top + inner.h }),
    svg(
      "text",
      { class: "label y", transform: `translate(14 ${MARGIN.top + inner.h / 2}) rotate(-90)` },
      `${series.metric} (${direction(series.better)})`,
    ),
    svg("text", { class: "label x", x: MARGIN.left + inner.w / 2, y: HEIGHT - 4 }, "paper date"),
  );
  let path = `M${x(times[0])},${y(scores[0])}`;
  for (let i = 1; i < steps.length; i += 1) path += `H${x(times[i])}V${y(scores[i])}`;
  path += `H${x(end)}`;
  const line = svg("path", { class: "step", d: path });
  const points = svg("g", { class: "points" });
  steps.forEach((step, i) => {
    const best = i === steps.length - 1;
    const point = svg("circle", {
      class: best ? "point best" : "point",
      cx: x(times[i]),
      cy: y(scores[i]),
      r: best ? 6.5 : 5,
      tabindex: 0,
      "data-index": i,
      "aria-label": `${step.date}: ${step.model}, ${number(step.score)}`,
    });
    const show = () => showTip(figure, tooltip, point, step, series);
    point.addEventListener("mouseenter", show);
    point.addEventListener("focus", show);
    point.addEventListener("mouseleave", () => (tooltip.hidden = true));
    point.addEventListener("blur", () => (tooltip.hidden = true));
    point.addEventListener("click", () => step.ref && papers.canOpen && papers.open(paperUrl(step.ref)));
    points.append(point);
  });
  chart.append(grid, axis, line, points);
  figure.querySelector("svg")?.remove();
  figure.prepend(chart);
}

function showTip(figure, tooltip, point, step, series) {
  tooltip.replaceChildren(
    el("strong", {}, step.model),
    step.paper || step.ref ? el("span", {}, step.paper || step.ref) : null,
    el(
      "span",
      { class: "numbers" },
      `${step.date} · ${series.metric} ${number(step.score)}`,
      step.gain !== undefined && step.gain !== null ? ` (${signed(step.gain)})` : "",
    ),
  );
  tooltip.hidden = false;
  const box = figure.getBoundingClientRect();
  const at = point.getBoundingClientRect();
  const left = Math.min(at.left - box.left + 10, box.width - tooltip.offsetWidth - 4);
  tooltip.style.left = `${Math.max(4, left)}px`;
  tooltip.style.top = `${Math.max(4, at.top - box.top - tooltip.offsetHeight - 8)}px`;
}

function stepTable(steps, series, papers) {
  const rows = [...steps].reverse().map((step) =>
    el(
      "tr",
      {},
      el("td", { class: "date" }, step.date),
      el("td", {}, step.model),
      el("td", {}, step.paper || step.ref ? papers.link(step.paper, step.ref) : ""),
      el("td", { class: "num" }, number(step.score)),
      el("td", { class: "num" }, signed(step.gain)),
      papers.canCall ? el("td", {}, papers.buttons(step.ref)) : null,
    ),
  );
  return el(
    "details",
    { class: "steps", open: steps.length <= 8 },
    el("summary", {}, `The ${steps.length} new bests, latest first`),
    el(
      "table",
      {},
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          el("th", {}, "date"),
          el("th", {}, "model"),
          el("th", {}, "paper"),
          el("th", { class: "num" }, series.metric),
          el("th", { class: "num" }, "gain"),
          papers.canCall ? el("th", {}, "") : null,
        ),
      ),
      el("tbody", {}, rows),
    ),
  );
}
