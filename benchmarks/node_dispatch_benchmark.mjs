// What a dispatch costs a Node host: the synchronous dispatch(), and dispatchAsync() on
// libuv's thread pool (the hop to the pool and back, and for a native hook the hop to the JS
// thread), with a native hook that answers at once and one that is an async function, and with
// an OpenCode plugin from the host's own code (addPlugin: plugline maps the event onto its
// tool.execute.before, synchronous or async); and how
// many timer ticks the event loop runs while a dispatchAsync() waits for an exec plugin that
// takes 100 ms (a dispatch() runs none).
//
// usage: PLUGLINE_NODE_ADDON=build/lib/plugline.node node benchmarks/node_dispatch_benchmark.mjs [CALLS]
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Host } = require("../bindings/node");
const CALLS = Number(process.argv[2] || 2000);
const payload = { tool: "bash", arguments: JSON.stringify({ command: "ls" }) };

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(label, call) {
  for (let i = 0; i < Math.min(200, CALLS); ++i) await call();  // warm up
  const times = [];
  for (let i = 0; i < CALLS; ++i) {
    const start = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} p50 ${percentile(times, 50).toFixed(1).padStart(7)} µs` +
              `   p99 ${percentile(times, 99).toFixed(1).padStart(7)} µs`);
}

const home = mkdtempSync(join(tmpdir(), "plugline-node-dispatch-bench-"));
try {
  const host = new Host({ home });
  host.addHook("pass", ["pre_tool_call"], () => null);
  await measure("dispatch(), a native hook", () => host.dispatch("pre_tool_call", payload));
  await measure("dispatchAsync(), a native hook", () => host.dispatchAsync("pre_tool_call", payload));
  host.removeHook("pass");
  host.addHook("pass", ["pre_tool_call"], async () => null);
  await measure("dispatchAsync(), an async native hook",
                () => host.dispatchAsync("pre_tool_call", payload));
  host.removeHook("pass");
  await host.addPlugin(async () => ({ "tool.execute.before": (input, output) => {} }),
                       { id: "sync-plugin" });
  await measure("dispatch(), addPlugin, a sync hook", () => host.dispatch("pre_tool_call", payload));
  await host.removeAddedPlugin("sync-plugin");
  await host.addPlugin(async () => ({ "tool.execute.before": async (input, output) => {} }),
                       { id: "async-plugin" });
  await measure("dispatchAsync(), addPlugin, an async hook",
                () => host.dispatchAsync("pre_tool_call", payload));
  await host.closeAsync();

  const dir = join(home, "plugins", "slow");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "plugin.yaml"), "name: slow\ncommand: ./run.sh\nhooks: [pre_tool_call]\n");
  writeFileSync(join(dir, "run.sh"), "#!/bin/sh\ncat >/dev/null\nsleep 0.1\necho '{}'\n");
  chmodSync(join(dir, "run.sh"), 0o755);
  const slow = new Host({ home });
  let ticks = 0;
  const timer = setInterval(() => { ++ticks; }, 1);
  await slow.dispatchAsync("pre_tool_call", payload);
  const during = ticks;
  slow.dispatch("pre_tool_call", payload);
  const blocked = ticks - during;
  clearInterval(timer);
  console.log(`1 ms timer ticks during a 100 ms exec plugin: dispatchAsync() ${during}, ` +
              `dispatch() ${blocked}`);
  await slow.closeAsync();
} finally {
  rmSync(home, { recursive: true, force: true });
}
