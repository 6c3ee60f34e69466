// The same built-in as oom/index.js hugeFill, at the module's top level.
const filled = new Array(1e8).fill(1.5);
export default { meta: { name: "oom-top-level", version: "1.0.0" }, size: filled.length };
