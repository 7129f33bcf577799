// A paper named in a result: opened through the host (ui/open-link), and where the host
// proxies tool calls (hostCapabilities.serverTools), read or cited through the server.

import { el } from "./dom.js";

const ARXIV = /^(\d{4}\.\d{4,5}|[a-z-]+(\.[a-z]{2})?\/\d{7})(v\d+)?$/i;

/** The page of a paper reference: arXiv's for an arXiv ID, else the catalog's. */
export function paperUrl(ref) {
  const id = String(ref || "").trim();
  if (!id) return null;
  if (ARXIV.test(id)) return `https://arxiv.org/abs/${id}`;
  return `https://paperswithcode.co/paper/${encodeURIComponent(id)}`;
}

/**
 * What the view may ask the host for: `open(url)`, and `call(tool, ref)` when the
 * host proxies tool calls (null otherwise), with `show(title, result)` for what came
 * back.
 */
export class PaperActions {
  constructor(app, panel) {
    this.app = app;
    this.panel = panel;
  }

  get canCall() {
    return Boolean(this.app.getHostCapabilities()?.serverTools);
  }

  get canOpen() {
    return Boolean(this.app.getHostCapabilities()?.openLinks);
  }

  /** The paper's title (or reference) as a button that opens it through the host, or
   * plain text (its address on hover) where the host opens no links. */
  link(title, ref) {
    const label = title || ref || "";
    const url = paperUrl(ref);
    if (!url) return document.createTextNode(label);
    if (!this.canOpen) return el("span", { title: url }, label);
    return el(
      "button",
      {
        type: "button",
        class: "paper",
        title: url,
        "data-ref": ref,
        onclick: () => this.open(url),
      },
      label,
    );
  }

  async open(url) {
    try {
      const { isError } = await this.app.openLink({ url });
      if (isError) this.note(`The host did not open ${url}.`);
    } catch {
      this.note(`The host did not open ${url}.`);
    }
  }

  /** Read and Cite buttons for a paper, when the host lets the view call tools. */
  buttons(ref) {
    if (!ref || !this.canCall) return null;
    return el(
      "span",
      { class: "actions" },
      el(
        "button",
        { type: "button", "data-tool": "read_paper", onclick: () => this.call("read_paper", ref) },
        "Read",
      ),
      el(
        "button",
        { type: "button", "data-tool": "cite_paper", onclick: () => this.call("cite_paper", ref) },
        "Cite",
      ),
    );
  }

  async call(tool, ref) {
    this.show(`${tool} ${ref}`, null);
    try {
      const result = await this.app.callServerTool({ name: tool, arguments: { paper: ref } });
      this.show(`${tool} ${ref}`, result);
    } catch (error) {
      this.show(`${tool} ${ref}`, {
        isError: true,
        content: [{ type: "text", text: String(error?.message || error) }],
      });
    }
  }

  note(text) {
    this.panel.replaceChildren(el("p", { class: "note" }, text));
  }

  show(title, result) {
    const text = result
      ? (result.content || [])
          .filter((block) => block.type === "text")
          .map((block) => block.text)
          .join("\n\n")
      : "…";
    this.panel.replaceChildren(
      el(
        "section",
        { class: result ? (result.isError ? "called error" : "called") : "called busy", "aria-live": "polite" },
        el("header", {}, el("strong", {}, title), el("button", {
          type: "button",
          class: "close",
          "aria-label": "Close",
          onclick: () => this.panel.replaceChildren(),
        }, "×")),
        el("pre", {}, text),
      ),
    );
  }
}
