import fs from "fs";
export default { fs };
