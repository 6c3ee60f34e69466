// Compiled from the code cache on a second load.
function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
const warm = fib(10);
export default {
  warm() {
    return warm;
  },
};
