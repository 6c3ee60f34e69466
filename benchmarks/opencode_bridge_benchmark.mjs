// What plugline's OpenCode plugin (bindings/opencode/plugline.js) costs OpenCode per hook call,
// against what plugline's Node addon would cost in the same process — the choice
// docs/agents.md ("OpenCode") explains.
//
// usage: node benchmarks/opencode_bridge_benchmark.mjs [PLUGLINE_BINARY] [CALLS]
//        BUN_BE_BUN=1 path/to/opencode benchmarks/opencode_bridge_benchmark.mjs [...]
//          (OpenCode's own executable is Bun; BUN_BE_BUN=1 makes it run a script)
//
// Prints, for a tool.execute.before call through one OpenCode JS plugin (a guard) in a scratch
// PLUGLINE_HOME: the bridge's hook (it runs `plugline hook --agent opencode`) with the server
// warm and in-process (p50, p99), a bare spawn of `true` from the same runtime (the floor), and
// whether plugline's addon loads in this runtime (in a child process, so that a crash is
// reported, not suffered) with its per-call time when it does.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const PLUGLINE = resolve(process.argv[2] || join(here, "../build/bin/plugline"));
const CALLS = Number(process.argv[3] || 200);
const ADDON = process.env.PLUGLINE_NODE_ADDON || join(dirname(PLUGLINE), "../lib/plugline.node");
const runtime = process.versions.bun ? `Bun ${process.versions.bun}` : `Node ${process.versions.node}`;

const home = mkdtempSync(join(tmpdir(), "plugline-bridge-bench-"));
mkdirSync(join(home, "plugins"));
writeFileSync(join(home, "plugins/guard.js"), `export const Guard = async () => ({
  "tool.execute.before": async (input, output) => {
    if (String(output.args.command).includes("rm -rf")) throw new Error("no rm -rf");
  },
});
`);
process.env.PLUGLINE_HOME = home;
process.env.PLUGLINE_BINARY = PLUGLINE;

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length / 2)], p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] };
}
function report(name, samples) {
  const { p50, p99 } = stats(samples);
  console.log(`${name.padEnd(62)} p50 ${p50.toFixed(3).padStart(8)} ms  p99 ${p99.toFixed(3).padStart(8)} ms`);
}

const { PluglineBridge } = await import("../bindings/opencode/plugline.js");
const hooks = await PluglineBridge({ client: { app: { log: async () => {} } }, directory: home });
// Every figure is of calls that reached the plugin: the guard must refuse this one.
async function checkBridge() {
  try {
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: "c0" },
                                       { args: { command: "rm -rf build" } });
  } catch (error) {
    if (error.message === "no rm -rf") return;
    throw error;
  }
  throw new Error("the guard did not refuse rm -rf through the bridge: the figures would be of nothing");
}
async function timeBridge(n) {
  await checkBridge();
  const samples = [];
  for (let i = 0; i < n; i++) {
    const output = { args: { command: "ls -la", description: "list" } };
    const start = performance.now();
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s1", callID: `c${i}` }, output);
    samples.push(performance.now() - start);
  }
  return samples;
}

console.log(`opencode_bridge_benchmark: ${runtime}, ${CALLS} calls each, PLUGLINE_HOME=${home}`);
const floor = [];
for (let i = 0; i < CALLS; i++) {
  const start = performance.now();
  spawnSync("true");
  floor.push(performance.now() - start);
}
report("spawn of true from this runtime (the floor)", floor);

spawnSync(PLUGLINE, ["server", "start"], { stdio: "ignore" });
await timeBridge(5);  // the server loads the plugin
report("bridge tool.execute.before, 1 OpenCode plugin, server warm", await timeBridge(CALLS));
spawnSync(PLUGLINE, ["server", "stop"], { stdio: "ignore" });
process.env.PLUGLINE_SERVER = "0";
report("bridge tool.execute.before, 1 OpenCode plugin, in-process", await timeBridge(Math.ceil(CALLS / 10)));
delete process.env.PLUGLINE_SERVER;

// The addon in this runtime, in a child of the same runtime.
const probe = `
const t0 = performance.now();
const { Host } = require(${JSON.stringify(join(here, "../bindings/node/index.js"))});
const h = new Host({ home: ${JSON.stringify(home)} });
const first = h.dispatch("pre_tool_call", { tool: "bash", arguments: '{"command":"ls"}' });
const samples = [];
for (let i = 0; i < ${CALLS}; i++) {
  const s = performance.now();
  h.dispatch("pre_tool_call", { tool: "bash", arguments: '{"command":"ls"}' });
  samples.push(performance.now() - s);
}
samples.sort((a, b) => a - b);
console.log(JSON.stringify({ load: performance.now() - t0, p50: samples[samples.length >> 1],
  p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))] }));
`;
const probeFile = join(home, "probe.cjs");
writeFileSync(probeFile, probe);
const child = spawnSync(process.execPath, [probeFile], {
  env: { ...process.env, PLUGLINE_NODE_ADDON: ADDON, BUN_BE_BUN: "1" }, encoding: "utf8", timeout: 120_000,
});
const line = (child.stdout || "").trim().split("\n").pop();
if (child.status === 0 && line.startsWith("{")) {
  const r = JSON.parse(line);
  console.log(`${"addon in this process: Host.dispatch, 1 OpenCode plugin".padEnd(62)} p50 ${r.p50.toFixed(3).padStart(8)} ms  p99 ${r.p99.toFixed(3).padStart(8)} ms  (load + first call ${r.load.toFixed(0)} ms)`);
} else {
  const why = (child.stderr || "").split("\n").find((l) => /panic|error|Error/.test(l)) || `exit ${child.status} ${child.signal ?? ""}`;
  console.log(`${"addon in this process".padEnd(62)} does not run: ${why.trim().slice(0, 160)}`);
}
rmSync(home, { recursive: true, force: true });
