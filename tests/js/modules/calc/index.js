import { add, PRECISION } from "./lib/math.js";

let calls = 0;
console.log("calc loaded", { precision: PRECISION });

export default {
  meta: { name: "calc", version: "1.0.0", priority: 120 },
  sum(numbers) {
    calls += 1;
    return { total: numbers.reduce(add, 0), calls, precision: PRECISION };
  },
  async later(value) {
    await Promise.resolve();
    return { value, url: import.meta.url };
  },
  echo(...args) {
    return args;
  },
  nothing() {},
  fails() {
    throw new RangeError("value out of range: 42");
  },
  async rejects() {
    throw new Error("async failure");
  },
  spin() {
    for (;;) {}
  },
  catchesTermination() {
    try {
      for (;;) {}
    } catch (e) {
      return "swallowed";
    }
  },
  pending() {
    return new Promise(() => {});
  },
  hog() {
    const keep = [];
    for (;;) keep.push(new Array(100000).fill({ x: Math.random() }));
  },
  buffers() {
    const keep = [];
    for (let i = 0; i < 1000; i++) keep.push(new ArrayBuffer(1 << 20));
    return keep.length;
  },
  cyclic() {
    const a = {};
    a.self = a;
    return a;
  },
  calls() {
    return calls;
  },
};
