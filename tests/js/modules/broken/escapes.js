import secret from "../calc/index.js";
export default { secret };
