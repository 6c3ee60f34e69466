// Commands no agent should run unasked. Each entry: a regular expression and why.
export const DEFAULT_PATTERNS = [
  [/\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r)\s+(\/|~|\$HOME)(\s|$)/, "deletes a home or root directory"],
  [/\bgit\s+push\b.*\s(--force|-f)(\s|$)/, "force-pushes"],
  [/\bmkfs(\.\w+)?\s/, "formats a file system"],
  [/\bdd\b.*\bof=\/dev\//, "writes to a raw device"],
  [/:\(\)\s*\{\s*:\|:&\s*\};:/, "is a fork bomb"],
];

// The option `extra` adds patterns ({pattern, reason}); `allow` lists exact commands to let
// through.
export function compile(options) {
  const extra = Array.isArray(options?.extra) ? options.extra : [];
  return {
    patterns: [
      ...DEFAULT_PATTERNS,
      ...extra.map(({ pattern, reason }) => [new RegExp(pattern), reason ?? `matches ${pattern}`]),
    ],
    allow: new Set(Array.isArray(options?.allow) ? options.allow : []),
  };
}
