// Types of the plugline Node.js binding (index.js). Every call is synchronous.

/** An error reported by plugline (or by the addon in plugline's terms). */
export class PluglineError extends Error {
  constructor(message: string, status: number, code: string);
  readonly name: 'PluglineError';
  /** The plugline_status: a negative number, e.g. -1. */
  status: number;
  /** plugline_status_str(status), e.g. "PLUGLINE_EINVALID". */
  code: string;
}

/** "0.1.0": plugline_version_string() of the loaded libplugline. */
export function version(): string;
/** plugline_abi_version() of the loaded libplugline (checked to be 1 at load). */
export function abiVersion(): number;
/** PLUGLINE_EXIT_CODE_UNKNOWN (INT32_MIN). */
export const EXIT_CODE_UNKNOWN: number;
/** The file the native addon was loaded from. */
export const addonPath: string;

export interface HostOptions {
  /** State directory; default $PLUGLINE_HOME, else ~/.plugline. */
  home?: string | null;
  /** A project whose .plugline/ adds configuration and plugins. */
  projectDir?: string | null;
  /** Keep raw outputs under <home>/outputs and name the file in summaries (default true). */
  storeOutputs?: boolean;
}

export interface ShapeOptions {
  /** Use this shaper ("builtin-generic") instead of choosing by match(). */
  shaper?: string | null;
}

export interface ShapeResult {
  summary: string;
  render_mode: 'summary' | 'raw';
  shaper: string;
  confidence: number;
  raw_path: string | null;
  raw_bytes: number;
  raw_lines: number;
  tokens_raw: number;
  tokens_summary: number;
  fallback: string | null;
  /** Shapers whose match() failed and were left out. */
  skipped: { plugin: string; why: string; detail: string }[];
}

export interface PluginInfo {
  id: string;
  kind: "builtin-shaper" | "js-shaper";
  tier: "built-in" | "community" | "premium" | null;
  state: "enabled" | "disabled" | "broken" | "shadowed";
  reason: string | null;
  path: string | null;
  source: "built-in" | "global" | "project" | "config";
  version: string | null;
  description: string | null;
}

export class Host {
  constructor(options?: HostOptions);
  shape(command: string, output: string | ArrayBufferView | ArrayBuffer,
        exitCode?: number | null, options?: ShapeOptions): ShapeResult;
  diagnostics(): string[];
  stats(): {
    version: number;
    shapers?: Record<string, {
      match_count?: number; shape_count?: number; fail_count?: number; tokens_saved?: number;
      shape_ms_total?: number; average_shape_ms: number;
    }>;
    daily?: Record<string, Record<string, { shapes: number; tokens_raw: number; tokens_saved?: number }>>;
  };
  plugins(): PluginInfo[];
  reload(): void;
  close(): void;
  readonly closed: boolean;
}

/** EXPERIMENTAL: runs `fn` of an ES module's default export in plugline's own V8. */
export function jsCall(modulePath: string, fn?: string | null, args?: unknown[],
                       timeoutMs?: number | null): unknown;
