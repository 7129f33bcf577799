// The leaderboard view of pwc-mcp-local: an MCP App (SEP-1865) that the host shows next
// to a sota_history, get_benchmark or results_table answer. It talks to the host only
// through the official SDK's `App` (postMessage JSON-RPC) and fetches nothing. What it
// needs beyond the result's two halves comes in the result's `_meta` under `pwc/view`
// (pwc_local/server/views.py), which hosts keep from the model.

import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";

import { el } from "./dom.js";
import { isHistory, renderHistory } from "./history.js";
import { isLeaderboard, renderLeaderboard } from "./leaderboard.js";
import { PaperActions } from "./papers.js";
import { isResultsTable, renderResultsTable } from "./results.js";

const VIEW_DATA = "pwc/view";

const root = document.getElementById("view");
const panel = document.getElementById("called");
const app = new App({ name: "pwc-mcp-local leaderboard", version: "0.1.0" }, {});
const papers = new PaperActions(app, panel);
let redraw = null;
let shown = null; // the result on screen
let input = {}; // the arguments of the call shown, from the host (ui/notifications/tool-input)

/** The same tool again with `changes` to its arguments (null: left out), through the host. */
async function rerun(tool, changes) {
  const before = input;
  input = { ...input, ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === null) delete input[name];
  document.body.dataset.view = "loading";
  let result;
  try {
    result = await app.callServerTool({ name: tool, arguments: input });
  } catch (error) {
    result = { isError: true, content: [{ type: "text", text: String(error?.message || error) }] };
  }
  if (result.isError) {
    // The series stays as it was, its filters too; the refusal says why.
    input = before;
    showResult(shown, tool);
    papers.show(tool, result);
    return;
  }
  showResult(result, tool);
}

function applyContext(context) {
  if (!context) return;
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

function show(view, node) {
  document.body.dataset.view = view;
  root.replaceChildren(node);
}

function showResult(result, tool = app.getHostContext()?.toolInfo?.tool?.name) {
  redraw = null;
  shown = result;
  if (result.isError) {
    const text = (result.content || []).filter((b) => b.type === "text").map((b) => b.text);
    show("error", el("p", { class: "error" }, text.join("\n") || "The tool failed."));
    return;
  }
  const record = result.structuredContent;
  const data = result._meta?.[VIEW_DATA] ?? null;
  // Where the host proxies tool calls, the view can ask for the same tool again.
  const again = (name) => (papers.canCall ? (changes) => rerun(name, changes) : null);
  let view;
  if (isHistory(record)) {
    const name = tool || "sota_history";
    const filters = papers.canCall ? { input, rerun: again(name) } : null;
    view = ["history", renderHistory(record, papers, filters)];
  } else if (isLeaderboard(record)) view = ["leaderboard", renderLeaderboard(record, papers, data)];
  else if (isResultsTable(record)) {
    view = ["results", renderResultsTable(record, papers, data, again(tool || "results_table"))];
  } else {
    show("unknown", el("p", { class: "empty" }, "This result has nothing to chart; the answer's text has it all."));
    return;
  }
  const [name, { node, draw }] = view;
  show(name, node);
  if (record.stale) {
    node.prepend(el("p", { class: "note" }, `From the cache of ${record.stale}: the catalog could not be reached.`));
  }
  redraw = draw;
  if (draw) draw();
}

app.addEventListener("toolinput", (params) => (input = { ...(params.arguments || {}) }));
app.addEventListener("toolresult", (result) => showResult(result));
app.addEventListener("toolcancelled", () =>
  show("cancelled", el("p", { class: "empty" }, "The call was cancelled.")),
);
app.addEventListener("hostcontextchanged", applyContext);

// The chart follows the frame's width (a height change alone redraws nothing).
let width = 0;
new ResizeObserver(([entry]) => {
  if (Math.round(entry.contentRect.width) === width) return;
  width = Math.round(entry.contentRect.width);
  redraw?.();
}).observe(root);

await app.connect();
applyContext(app.getHostContext());
