// A plugin whose own code loops wherever the host touches one of its values: thrown values'
// toString and `message`/`stack` getters, a rejection reason, a result's toJSON, getters on the
// default export, console arguments. Used by tests/js/runtime_test.cc: every entry into a
// plugin must run under the deadline.
function errorWithLoopingGetter(property) {
  const error = new Error("looping " + property);
  Object.defineProperty(error, property, {
    get() {
      for (;;) {}
    },
  });
  return error;
}
const loopingToString = {
  toString() {
    for (;;) {}
  },
};

let calls = 0;

export default {
  meta: { name: "looping", version: "1.0.0" },
  get loopingGetter() {
    for (;;) {}
  },
  get slowMethod() {
    for (;;) {}
  },
  loopingToJSON: {
    toJSON() {
      for (;;) {}
    },
  },
  throwsLoopingToString() {
    throw loopingToString;
  },
  throwsLoopingMessage() {
    throw errorWithLoopingGetter("message");
  },
  throwsLoopingStack() {
    throw errorWithLoopingGetter("stack");
  },
  async rejectsLoopingToString() {
    throw loopingToString;
  },
  returnsLoopingToJSON() {
    return {
      toJSON() {
        for (;;) {}
      },
    };
  },
  logsLoopingToJSON() {
    console.log({
      toJSON() {
        for (;;) {}
      },
    });
    return "logged";
  },
  calls() {
    calls += 1;
    return calls;
  },
};
