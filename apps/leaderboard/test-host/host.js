// A minimal MCP Apps host for the browser test (tests/test_view_browser.py), built on the
// official SDK's host side (`AppBridge`). It shows the view's HTML in a frame under the
// extension's default content security policy, hands it a tool's input and result, and
// records what the view asks of the host (open-link, tools/call). The test drives it
// through `window.host` and answers the view's tool calls with real results.

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

// The extension's default policy when a resource declares no `ui.csp` (SEP-1865).
const CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'self'",
].join("; ");

function withPolicy(html) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${CSP}">`;
  return html.replace(/<head>/i, `<head>${meta}`);
}

const frames = new Map();
const waiting = [];

function record(entry) {
  window.host.asked.push(entry);
  for (const wake of waiting.splice(0)) wake();
}

window.host = {
  /** What the views asked of the host: {slot, openLink} or {slot, call: {name, arguments}}. */
  asked: [],
  /** Results for the views' tool calls, by tool name (set by the test). */
  answers: {},

  /**
   * Show `html` in a frame in `slot` for the call of `tool` with `input` that gave
   * `result`; resolves once the view has drawn it (`data-view` on its body).
   */
  show(slot, { html, tool, input, result, context }) {
    const iframe = document.createElement("iframe");
    iframe.title = tool;
    // Same origin as this page, so the test reads the view's document; scripts only.
    iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
    document.getElementById(slot).replaceChildren(iframe);
    const bridge = new AppBridge(
      null,
      { name: "pwc-mcp-local test host", version: "1.0.0" },
      { openLinks: {}, serverTools: {}, logging: {} },
      { hostContext: { ...context, displayMode: "inline", toolInfo: { tool: { name: tool, inputSchema: { type: "object" } } } } },
    );
    bridge.onopenlink = async ({ url }) => {
      record({ slot, openLink: url });
      return {};
    };
    bridge.oncalltool = async (params) => {
      record({ slot, call: params });
      return window.host.answers[params.name] ?? { isError: true, content: [{ type: "text", text: "not_found: no answer" }] };
    };
    bridge.onsizechange = ({ height }) => {
      if (height) iframe.style.height = `${height}px`;
    };
    bridge.oninitialized = () => {
      bridge.sendToolInput({ arguments: input });
      bridge.sendToolResult(result);
    };
    frames.set(slot, { iframe, bridge });
    const drawn = new Promise((resolve) => {
      iframe.addEventListener("load", () => {
        const body = iframe.contentDocument.body;
        if (body.dataset.view) return resolve(body.dataset.view);
        new MutationObserver((_, observer) => {
          if (body.dataset.view) {
            observer.disconnect();
            resolve(body.dataset.view);
          }
        }).observe(body, { attributes: true });
      });
    });
    bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    iframe.srcdoc = withPolicy(html);
    return drawn;
  },

  /** Tell the view in `slot` that the host's theme changed. */
  async theme(slot, context) {
    await frames.get(slot).bridge.sendHostContextChange(context);
  },

  /** Resolves with `asked` once the views have asked the host `count` things. */
  async askedAtLeast(count) {
    while (window.host.asked.length < count) await new Promise((wake) => waiting.push(wake));
    return window.host.asked;
  },

  /** Resolves with the text of `selector` in the view in `slot` once it is there. */
  until(slot, selector) {
    const doc = frames.get(slot).iframe.contentDocument;
    return new Promise((resolve) => {
      const look = () => doc.querySelector(selector)?.textContent;
      if (look() !== undefined) return resolve(look());
      const observer = new MutationObserver(() => {
        if (look() !== undefined) {
          observer.disconnect();
          resolve(look());
        }
      });
      observer.observe(doc.body, { childList: true, subtree: true, characterData: true });
    });
  },

  /** The view's document in `slot`. */
  view(slot) {
    return frames.get(slot).iframe.contentDocument;
  },
};
