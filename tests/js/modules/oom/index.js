// Allocations the heap limit alone does not stop in process. Used by tests/js/runtime_test.cc
// (the isolate is abandoned or the call fails, the process lives) and, with the same calls,
// by tests/js/process_runtime_test.cc through tests/js/modules/hostile/.
let calls = 0;

export default {
  meta: { name: "oom", version: "1.0.0" },
  calls() {
    calls += 1;
    return calls;
  },
  // A long C++ built-in that allocates as it goes: TerminateExecution cannot interrupt it, so
  // it runs until V8 reports a fatal out-of-memory.
  hugeFill() {
    return new Array(1e8).fill(1.5).length;
  },
  // One WebAssembly memory larger than any plugline allows.
  hugeWasmMemory() {
    return new WebAssembly.Memory({ initial: 65536 }).buffer.byteLength;
  },
  // Many memories, each allowed, together past the ArrayBuffer limit, each written to.
  manyWasmMemories(count, pages) {
    const kept = [];
    for (let i = 0; i < count; i++) {
      const memory = new WebAssembly.Memory({ initial: pages });
      new Uint8Array(memory.buffer).fill(1);
      kept.push(memory);
    }
    return kept.length;
  },
  // One memory grown page by page past the limit.
  growWasmMemory(pages) {
    const memory = new WebAssembly.Memory({ initial: 1 });
    for (let i = 0; i < pages; i++) memory.grow(1);
    return memory.buffer.byteLength;
  },
};
