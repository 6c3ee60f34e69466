// A different source of a different length: a cache made for one.js does not fit it.
export default {
  two() {
    return 2;
  },
  padding: "............................................................",
};
