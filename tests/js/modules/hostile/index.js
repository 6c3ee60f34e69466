// A plugin that does what V8 cannot stop in process: used by tests/js/process_runtime_test.cc
// (Isolation::kProcess) to check that the worker process contains it.
import { countLines } from "./lib/text.js";

let calls = 0;
console.log("hostile loaded", { pid: "worker" });

export default {
  meta: { name: "hostile", version: "1.0.0" },
  match(command, snippet, exitCode) {
    calls += 1;
    console.warn("matching", command);
    return { matched: command.startsWith("terraform"), calls, exitCode };
  },
  shape(output) {
    return { summary: `${countLines(output)} lines`, echo: output };
  },
  length(text) {
    return text.length;
  },
  calls() {
    return calls;
  },
  fails() {
    throw new TypeError("hostile failure");
  },
  spin() {
    for (;;) {}
  },
  pending() {
    return new Promise(() => {});
  },
  hog() {
    const keep = [];
    for (;;) keep.push(new Array(100000).fill({ x: Math.random() }));
  },
  // One allocation of 500 MB (repeat() builds a rope; indexOf() flattens it into one flat
  // string): not covered by the heap limit. In process it kills the process.
  hugeString() {
    return "x".repeat(5e8).indexOf("y");
  },
  // A long C++ built-in: TerminateExecution cannot interrupt it.
  hugeFill() {
    return new Array(1e8).fill(1.5).length;
  },
  hugeSmiArray() {
    return new Array(3e7).fill(1).length;
  },
  typeOf(...args) {
    return args.map((a) => (Object.is(a, -0) ? "-0" : Number.isNaN(a) ? "NaN" : typeof a));
  },
};
