import { a } from "./a.js";
import { b } from "./lib/b.js";
export default { value: () => a + b };
