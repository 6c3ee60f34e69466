await new Promise((resolve, reject) => setTimeout(() => reject(new RangeError("no config")), 1));
export default {};
