export default {
  match(command) {
    return { matched: true, confidence: 0.9 ;
  },
};
