import { shared } from "./shared.js";
export const b = shared + 2;
