import { shared } from "./lib/shared.js";
export const a = shared + 1;
