// Builds the leaderboard view into one self-contained HTML file (script and style
// inlined, nothing fetched) that pwc-mcp-local serves as its ui:// resource, the
// license notices of what it bundles, and the test host page of the browser test.
//
//   npm ci && npm run build     (from apps/leaderboard/)
//
// Output (committed, so that installing needs no Node):
//   pwc_local/views/leaderboard.html         the view
//   pwc_local/views/THIRD_PARTY_NOTICES.txt  licenses of the bundled packages
//   tests/data/view_host.html                the test's host page (AppBridge)

import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const VIEW = join(repo, "pwc_local/views/leaderboard.html");
const NOTICES = join(repo, "pwc_local/views/THIRD_PARTY_NOTICES.txt");
const HOST = join(repo, "tests/data/view_host.html");

async function bundle(entry) {
  const built = await esbuild.build({
    entryPoints: [join(here, entry)],
    bundle: true,
    format: "esm",
    minify: true,
    target: ["es2022"],
    legalComments: "none", // the notices go to THIRD_PARTY_NOTICES.txt
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  const code = built.outputFiles[0].text.trim();
  if (/<\/script/i.test(code)) throw new Error(`${entry}: the bundle contains </script`);
  return { code, inputs: Object.keys(built.metafile.inputs) };
}

/** The npm packages whose files went into a bundle: name, version, license, text. */
function packages(inputs) {
  const found = new Map();
  for (const input of inputs) {
    const at = input.lastIndexOf("node_modules/");
    if (at < 0) continue;
    const parts = input.slice(at + "node_modules/".length).split("/");
    const name = parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
    if (found.has(name)) continue;
    const dir = join(here, "node_modules", name);
    const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const file = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license"].find((f) => existsSync(join(dir, f)));
    if (!file) throw new Error(`${name}: no license file to include`);
    found.set(name, {
      name,
      version: meta.version,
      license: meta.license,
      text: readFileSync(join(dir, file), "utf8").trim(),
    });
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function inline(template, { notice, style = "", script }) {
  // Functions as replacements: `$` in the minified code must stay as it is.
  return readFileSync(join(here, template), "utf8")
    .replace("<!--NOTICE-->", () => notice)
    .replace("/*STYLE*/", () => style)
    .replace("/*SCRIPT*/", () => script);
}

function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`${relative(repo, path)}: ${text.length.toLocaleString("en-US")} bytes`);
}

const view = await bundle("src/main.js");
const host = await bundle("test-host/host.js");
const style = (
  await esbuild.transform(readFileSync(join(here, "src/view.css"), "utf8"), { loader: "css", minify: true })
).code.trim();
const bundled = packages(view.inputs);
const names = bundled.map((p) => `${p.name} ${p.version} (${p.license})`).join(", ");
const notice = `<!-- pwc-mcp-local leaderboard view, built from apps/leaderboard/ (npm ci && npm run build). Bundles ${names}: their licenses are in THIRD_PARTY_NOTICES.txt beside this file. -->`;

write(VIEW, inline("src/view.html", { notice, style, script: view.code }));
write(
  NOTICES,
  [
    "The leaderboard view (leaderboard.html) bundles these npm packages, unmodified",
    "apart from minification. Their license texts follow.",
    "",
    ...bundled.flatMap((p) => [`${"=".repeat(78)}`, `${p.name} ${p.version} (${p.license})`, `${"=".repeat(78)}`, "", p.text, ""]),
  ].join("\n"),
);
write(
  HOST,
  inline("test-host/host.html", {
    notice: `<!-- Test host of tests/test_view_browser.py, built from apps/leaderboard/test-host/. Bundles ${packages(host.inputs).map((p) => `${p.name} ${p.version} (${p.license})`).join(", ")}. -->`,
    script: host.code,
  }),
);
