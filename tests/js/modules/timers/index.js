// Timers and microtasks: setTimeout, setInterval, clearTimeout, clearInterval, queueMicrotask.
let leftoverFired = 0;

const sleep = (ms, value) => new Promise((resolve) => setTimeout(resolve, ms, value));

export default {
  sleep(ms, value) {
    return sleep(ms, value);
  },
  async ordering() {
    const order = [];
    setTimeout(() => order.push("timeout 0"), 0);
    setTimeout(() => order.push("timeout 5"), 5);
    queueMicrotask(() => order.push("microtask"));
    Promise.resolve().then(() => order.push("promise"));
    order.push("sync");
    await sleep(20);
    return order;
  },
  extraArguments() {
    return new Promise((resolve) => setTimeout((a, b) => resolve([a, b]), 1, "a", 2));
  },
  interval(times) {
    return new Promise((resolve) => {
      let ticks = 0;
      const id = setInterval(() => {
        ticks += 1;
        if (ticks === times) {
          clearInterval(id);
          resolve(ticks);
        }
      }, 1);
    });
  },
  cleared() {
    return new Promise((resolve) => {
      const id = setTimeout(() => resolve("the cleared timer fired"), 1);
      clearTimeout(id);
      clearTimeout(12345); // unknown ids are ignored
      clearTimeout(undefined);
      setTimeout(() => resolve("ok"), 5);
    });
  },
  clearedOnly() {
    // The only timer is cleared: nothing can settle the promise any more.
    return new Promise((resolve) => {
      clearTimeout(setTimeout(resolve, 1));
    });
  },
  async throwingTimer() {
    setTimeout(() => {
      throw new Error("timer exploded");
    }, 0);
    queueMicrotask(() => {
      throw new TypeError("microtask exploded");
    });
    return await sleep(10, "still running");
  },
  tooSlow() {
    return sleep(60000, "late");
  },
  loopInTimer() {
    return new Promise((resolve) => {
      setTimeout(() => {
        for (;;) {}
      }, 0);
      setTimeout(resolve, 50);
    });
  },
  scheduleLeftover() {
    setTimeout(() => {
      leftoverFired += 1;
    }, 1);
    return "scheduled";
  },
  async leftoverCount() {
    await sleep(10);
    return leftoverFired;
  },
  badCallback() {
    try {
      setTimeout("code strings are not run");
      return "accepted";
    } catch (e) {
      return e.constructor.name;
    }
  },
  ids() {
    const a = setTimeout(() => {}, 100000);
    const b = setInterval(() => {}, 100000);
    clearTimeout(a);
    clearInterval(b);
    return [typeof a, a > 0, b > a];
  },
};
