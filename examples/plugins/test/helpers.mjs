// Shared checks for the example plugins' tests (node --test examples/plugins/test/).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, "../../..");
export const pluginsDir = path.resolve(here, "..");

export async function loadPlugin(name) {
  const mod = await import(path.join(pluginsDir, `${name}.js`));
  return mod.default;
}

// Every fixture of a plugin: {name, raw, meta} (meta from NAME.json, see FORMAT.md).
export function loadFixtures(plugin) {
  const dir = path.join(repoRoot, "tests/fixtures/plugins", plugin);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".out"))
    .sort()
    .map((f) => {
      const name = f.slice(0, -4);
      const metaPath = path.join(dir, `${name}.json`);
      assert.ok(fs.existsSync(metaPath), `${plugin}/${name}.json is missing`);
      return {
        name,
        raw: fs.readFileSync(path.join(dir, f), "utf8"),
        meta: JSON.parse(fs.readFileSync(metaPath, "utf8")),
      };
    });
}

// What plugline hands a shaper, approximately (docs/shaping.md, "Normalize"): ANSI escape
// sequences removed, "cursor up" redraws replace the lines they redraw, carriage-return
// redraws keep the final state, CRLF read as LF.
export function normalize(raw) {
  const out = [];
  for (let line of raw.replace(/\r\n/g, "\n").split("\n")) {
    const up = /\x1b\[(\d*)A/g;
    let m;
    let lift = 0;
    while ((m = up.exec(line))) lift += Number(m[1] || 1);
    for (let i = 0; i < lift && out.length > 0; i++) out.pop();
    line = line.replace(/\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g, "");
    if (line.includes("\r")) {
      const parts = line.split("\r").filter((p) => p.length > 0);
      line = parts.length ? parts[parts.length - 1] : "";
    }
    out.push(line);
  }
  return out.join("\n");
}

export function context(text, meta) {
  return {
    command: meta.command,
    exitCode: meta.exit_code,
    outputBytes: Buffer.byteLength(text),
    outputLines: text.split("\n").length,
  };
}

// The contract's result type, exactly.
export function assertResultType(result, where) {
  assert.equal(typeof result, "object", `${where}: result is not an object`);
  assert.ok(result !== null, `${where}: result is null`);
  assert.equal(typeof result.summary, "string", `${where}: summary is not a string`);
  if ("renderMode" in result) {
    assert.ok(["summary", "raw"].includes(result.renderMode), `${where}: renderMode ${result.renderMode}`);
  }
  if ("failed" in result) {
    assert.equal(typeof result.failed, "boolean", `${where}: failed is not a boolean`);
  }
  for (const key of Object.keys(result)) {
    assert.ok(["summary", "renderMode", "failed"].includes(key), `${where}: unexpected key ${key}`);
  }
}

export function assertMatchType(result, where) {
  assert.equal(typeof result, "object", `${where}: match result is not an object`);
  assert.equal(typeof result.matched, "boolean", `${where}: matched is not a boolean`);
  assert.equal(typeof result.confidence, "number", `${where}: confidence is not a number`);
  assert.ok(result.confidence >= 0 && result.confidence <= 1, `${where}: confidence ${result.confidence}`);
  if ("signals" in result) {
    assert.ok(Array.isArray(result.signals) && result.signals.every((s) => typeof s === "string"), `${where}: signals`);
  }
}

const CLIPPED = /^(.*) … \d+ characters of this line omitted … (.*)$/s;

// Provenance: every line after the header is a line of the output (trimmed at the end),
// a clipped long line (head and tail of one output line), or a counted elision "… ".
export function assertProvenance(summary, text, where) {
  const outputLines = new Set(text.split("\n").map((l) => l.trimEnd()));
  const all = text.split("\n").map((l) => l.trimEnd());
  const lines = summary.split("\n");
  for (const line of lines.slice(1)) {
    if (line.startsWith("… ")) {
      assert.match(line, /\d/, `${where}: elision without a count: ${line}`);
      continue;
    }
    if (outputLines.has(line.trimEnd())) continue;
    const c = CLIPPED.exec(line);
    if (c && all.some((l) => l.startsWith(c[1]) && l.endsWith(c[2]))) continue;
    assert.fail(`${where}: summary line is not from the output: ${JSON.stringify(line)}`);
  }
}

export function assertMustKeep(summary, meta, where) {
  for (const s of meta.must_keep) {
    assert.ok(summary.includes(s), `${where}: must-keep ${JSON.stringify(s)} is not in the summary:\n${summary}`);
  }
}

// Runs the plugin on a fixture the way plugline would (normalized text) and checks what
// holds for every fixture. Returns the result.
export function shapeFixture(plugin, fx) {
  const text = normalize(fx.raw);
  const where = `${plugin.meta.name}/${fx.name}`;
  const snippet = text.length <= 8192 ? text : text.slice(0, 4096) + "\n" + text.slice(-4096);
  const m = plugin.match(fx.meta.command, snippet, fx.meta.exit_code);
  assertMatchType(m, where);
  assert.ok(m.matched && m.confidence >= 0.9, `${where}: the fixture's own command should match at 0.9+`);
  const result = plugin.shape(text, context(text, fx.meta));
  assertResultType(result, where);
  assert.equal(result.renderMode ?? "summary", "summary", `${where}: fell back to raw:\n${result.summary}`);
  assert.ok(result.summary.length > 0, `${where}: empty summary`);
  assertProvenance(result.summary, text, where);
  assertMustKeep(result.summary, fx.meta, where);
  if (fx.meta.kind === "large") {
    assert.ok(result.summary.length * 10 < text.length, `${where}: summary ${result.summary.length} chars for ${text.length}`);
  }
  // The same output, un-normalized (a host that does not normalize), is still read.
  const rawResult = plugin.shape(fx.raw, context(fx.raw, fx.meta));
  assertResultType(rawResult, `${where} (raw)`);
  assert.equal(rawResult.summary.split("\n")[0], result.summary.split("\n")[0], `${where}: header differs on un-normalized text`);
  return { result, text, where };
}

// Odd inputs never throw and never return anything but the contract's types.
export function assertRobust(plugin, command) {
  const odd = [
    "",
    "\n\n\n",
    "x".repeat(200000),
    "\u0000\u0001\u0002binary\uFFFD\n".repeat(100),
    "Error:\n",
    "│ Error: \n╵",
    "PLAY RECAP ***\n",
  ];
  for (const text of odd) {
    for (const exitCode of [0, 1, null]) {
      const where = `${plugin.meta.name} odd input ${JSON.stringify(text.slice(0, 20))} exit ${exitCode}`;
      const r = plugin.shape(text, { command, exitCode, outputBytes: text.length, outputLines: text.split("\n").length });
      assertResultType(r, where);
      assertMatchType(plugin.match(command, text.slice(0, 8192), exitCode), where);
    }
  }
  // Missing or odd-typed context fields.
  assertResultType(plugin.shape("some output\n", {}), `${plugin.meta.name} empty context`);
  assertResultType(plugin.shape("some output\n", undefined), `${plugin.meta.name} no context`);
}

export function assertMeta(meta, name) {
  assert.equal(meta.name, name);
  for (const key of ["name", "version", "description"]) assert.equal(typeof meta[key], "string", key);
  assert.ok(["built-in", "community", "premium"].includes(meta.tier), "tier");
  if ("priority" in meta) assert.equal(typeof meta.priority, "number");
  if ("outputKind" in meta) assert.equal(typeof meta.outputKind, "string");
}
