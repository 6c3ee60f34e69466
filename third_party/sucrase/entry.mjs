// The bundle's entry point: esbuild turns this into one IIFE that sets globalThis.sucrase.
// Only the transform path is exposed; nothing here touches Node APIs (no require/register).
import {transform, getVersion} from "sucrase";

globalThis.sucrase = {transform, getVersion};
