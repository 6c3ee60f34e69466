// A default export whose every trap loops: reading any property of it is plugin code.
const trap = () => {
  for (;;) {}
};
export default new Proxy({}, { get: trap, has: trap, ownKeys: trap, getOwnPropertyDescriptor: trap });
