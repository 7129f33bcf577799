// Small DOM helpers. Every text from a result (the catalog's names, titles, notes) is
// set as textContent, never parsed as HTML.

const SVG = "http://www.w3.org/2000/svg";

/** An element with attributes (`class`, `data-*`, `aria-*` ...) and children. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  return fill(node, attributes, children);
}

/** An SVG element, as `el`. */
export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  return fill(node, attributes, children);
}

function fill(node, attributes, children) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      node.addEventListener(name.slice(2), value);
    } else {
      node.setAttribute(name, value === true ? "" : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A number as the text block writes it: up to 4 significant decimals, no trailing zeros. */
export function number(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "";
  const rounded = Math.abs(value) >= 1000 ? Math.round(value * 100) / 100 : +value.toPrecision(6);
  return rounded.toLocaleString("en-US", { maximumFractionDigits: 4 });
}

/** A signed number (a gain): `+3.5`, `-2.5`. */
export function signed(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "";
  return (value > 0 ? "+" : "") + number(value);
}

const UNITS = [
  [1e12, "T"],
  [1e9, "B"],
  [1e6, "M"],
  [1e3, "K"],
];

/** A parameter count as people write it: 7B, 350M, 1.5B. */
export function parameters(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "";
  for (const [size, unit] of UNITS) {
    if (value >= size) return `${+(value / size).toPrecision(3)}${unit}`;
  }
  return String(value);
}

/** `4B`, `350m`, `1.5e9`, `7000000` as a count; `null` for anything else. */
export function parseParameters(text) {
  const match = /^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([kmbt]?)\s*$/i.exec(text || "");
  if (!match) return null;
  const scale = { "": 1, k: 1e3, m: 1e6, b: 1e9, t: 1e12 }[match[2].toLowerCase()];
  return Number(match[1]) * scale;
}
