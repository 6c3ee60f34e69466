// Top-level await on a timer: the module is usable once it settled.
const started = Date.now();
await new Promise((resolve) => setTimeout(resolve, 10));
const waited = Date.now() - started;

export default {
  waited() {
    return waited;
  },
};
