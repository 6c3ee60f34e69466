// A shaper as the host calls it: match(command, snippet, exitCode) and shape(output, ctx),
// with typed arguments (Module::CallArgs).
let matches = 0;

export default {
  meta: { name: "shaper-fixture", version: "1.0.0" },
  match(command, snippet, exitCode) {
    matches += 1;
    if (/\bterraform\b/.test(command)) {
      return { matched: true, confidence: 0.9, signals: ["terraform"], exitCode, snippet };
    }
    return { matched: false, confidence: 0 };
  },
  shape(output, ctx) {
    const lines = output.split("\n");
    const errors = lines.filter((l) => /error/i.test(l));
    return {
      summary: `${lines.length} lines, ${errors.length} errors`,
      length: output.length,
      first: output.codePointAt(0),
      last: Array.from(output.slice(-2)).pop().codePointAt(0),
      ctx,
    };
  },
  types(...args) {
    return args.map((a) => (a === null ? "null" : typeof a));
  },
  echo(...args) {
    return args;
  },
  matches() {
    return matches;
  },
  replaceMatch() {
    this.match = () => ({ matched: true, confidence: 1, replaced: true });
    return true;
  },
  async later(value) {
    await null;
    return { value };
  },
  loops() {
    for (;;) {}
  },
  cyclic() {
    const a = {};
    a.self = a;
    return a;
  },
  badToJson() {
    return {
      toJSON() {
        for (;;) {}
      },
    };
  },
};
