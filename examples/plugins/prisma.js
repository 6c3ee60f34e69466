// prisma.js: a plugline shaper for the Prisma CLI (an example plugin).
//
// Shapes `prisma migrate dev|deploy|reset|status|resolve`, `prisma generate`,
// `prisma db push` and `prisma validate|format`, however they are launched
// (`npx prisma …`, `pnpm exec prisma …`, `yarn prisma …`, `./node_modules/.bin/prisma …`).
//
// What the agent gets:
//   - success: one line with the counts read from the output
//       prisma migrate deploy: OK — 3 migrations applied
//   - failure: a header with the error codes (P1012, P3009, …) and the exit code, then
//     every error line as printed, with its location (`-->  prisma/schema.prisma:13`), the
//     source line it points at, the migration it happened in and the explanation Prisma
//     gave. Loading chatter, code-frame gutters and engine backtraces are counted, not shown.
//   - anything it does not recognize: renderMode "raw" (the agent sees the real output).
//
// Rules it keeps (docs/plugins-shapers.md): every line after the header is a line of the
// output (trimmed at the end) or a counted elision starting with "… "; nothing is invented.

const meta = {
  name: "prisma",
  version: "1.0.0",
  description: "Prisma CLI: migrate, generate, db push, validate, format",
  author: "plugline examples",
  tier: "community",
  outputKind: "prisma",
  priority: 120,
};

// ---------------------------------------------------------------------------------------
// Reading the command

// Programs that run another program named by their next word(s).
const RUNNERS = new Set(["npx", "pnpx", "bunx", "env", "time", "sudo", "dotenv", "doppler"]);
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
const PM_EXEC_WORDS = new Set(["exec", "dlx", "x"]);

// The subcommands this shaper knows, longest first.
const SUBCOMMANDS = [
  "migrate dev", "migrate deploy", "migrate reset", "migrate status", "migrate resolve",
  "db push", "generate", "validate", "format",
];

function basename(word) {
  const i = word.lastIndexOf("/");
  return i >= 0 ? word.slice(i + 1) : word;
}

function isPrismaProgram(word) {
  return /^prisma(@[\w.^~<>=*-]+)?$/.test(basename(word.replace(/^["']|["']$/g, "")));
}

// Finds `prisma <words…>` in a shell command line. Returns the words after the program
// (flags dropped) or null when no segment of the command runs prisma.
function findPrismaInvocation(command) {
  for (const segment of command.split(/&&|\|\||[;|\n]/)) {
    const words = segment.trim().split(/\s+/).filter(Boolean);
    let i = 0;
    while (i < words.length) {
      const w = words[i];
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || w.startsWith("-") || RUNNERS.has(basename(w))) {
        i++;
        continue;
      }
      if (PACKAGE_MANAGERS.has(w)) {
        i++;
        if (i < words.length && PM_EXEC_WORDS.has(words[i])) i++;
        continue;
      }
      break;
    }
    // `dotenv -e .env.test -- prisma …`: the program after "--".
    let at = i < words.length && isPrismaProgram(words[i]) ? i : -1;
    if (at < 0) {
      const dd = words.indexOf("--");
      if (dd >= 0 && dd + 1 < words.length && isPrismaProgram(words[dd + 1])) at = dd + 1;
    }
    if (at < 0) continue;
    const rest = [];
    for (let j = at + 1; j < words.length; j++) {
      const w = words[j];
      if (w.startsWith("-")) {
        // `--schema path` / `--name init` take a value; `--name=init` does not.
        if (/^--(schema|name|config|filter)$/.test(w)) j++;
        continue;
      }
      rest.push(w);
    }
    return rest;
  }
  return null;
}

function knownSubcommand(words) {
  const text = words.slice(0, 2).join(" ");
  for (const sub of SUBCOMMANDS) {
    if (text === sub || text.startsWith(sub + " ") || words[0] === sub) return sub;
  }
  return null;
}

// Lines that only Prisma prints. Used when the command does not say prisma
// (`npm run db:migrate`, a saved log).
const OUTPUT_SIGNALS = [
  [/^Prisma schema loaded from /m, "Prisma schema loaded"],
  [/^Prisma CLI Version : /m, "Prisma CLI Version"],
  [/^Error code: P\d{4}$/m, "Prisma error code"],
  [/^Error: P\d{4}\b/m, "Prisma error code"],
  [/^\d+ migrations? found in \S*migrations$/m, "migrations found"],
  [/Generated Prisma Client \(/, "Generated Prisma Client"],
  [/^Datasource "[^"]+": (PostgreSQL|MySQL|SQLite|SQL Server|MongoDB|CockroachDB) database/m, "Prisma datasource"],
];

function match(command, outputSnippet, exitCode) {
  const words = findPrismaInvocation(String(command ?? ""));
  if (words) {
    const sub = knownSubcommand(words);
    if (sub) return { matched: true, confidence: 0.95, signals: [`command: prisma ${sub}`] };
    // `prisma studio`, `prisma init`, `prisma --version`: not shaped here; other shapers
    // (or the raw output) serve them better. Fall through to the output's own signals.
  }
  const snippet = String(outputSnippet ?? "");
  const signals = [];
  for (const [re, name] of OUTPUT_SIGNALS) {
    if (re.test(snippet) && !signals.includes(name)) signals.push(name);
  }
  if (signals.length > 0) return { matched: true, confidence: 0.6, signals };
  return { matched: false, confidence: 0 };
}

// ---------------------------------------------------------------------------------------
// Reading the output

// plugline hands shapers normalized text (no ANSI codes, carriage-return redraws applied);
// this does the same for hosts that do not, so the lines kept are what a terminal showed.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

function cleanLines(output) {
  return output.split("\n").map((raw) => {
    let line = raw.replace(ANSI, "");
    if (line.includes("\r")) {
      const parts = line.split("\r").filter((p) => p.length > 0);
      line = parts.length ? parts[parts.length - 1] : "";
    }
    return line.trimEnd();
  });
}

const MAX_LINE = 4096;
// Very long lines keep their head and tail around a counted marker.
function clip(line) {
  if (line.length <= MAX_LINE) return line;
  const head = line.slice(0, 2048);
  const tail = line.slice(-512);
  return `${head} … ${line.length - 2560} characters of this line omitted … ${tail}`;
}

// What is said on every run and means nothing to the agent. Each entry: test, kind.
const CHATTER = [
  [/^Loaded Prisma config from /, "loading"],
  [/^Prisma config detected, skipping environment variable loading\.$/, "loading"],
  [/^Environment variables loaded from /, "loading"],
  [/^Prisma schemas? loaded from /, "loading"],
  [/^Datasource "[^"]+": /, "loading"],
  [/^Running generate\.\.\./, "generate progress"],
  [/^Start by importing your Prisma Client/, "tips"],
  [/^Tip: /, "tips"],
  [/^Prisma CLI Version : /, "tips"],
];

function chatterKind(line) {
  for (const [re, kind] of CHATTER) if (re.test(line)) return kind;
  return null;
}

// The driver-adapter notice is 4 lines (WARNING, "- url", "… NOT be used!", "We recommend …").
function isAdapterWarningStart(line) {
  return /^WARNING: Your schema specifies the following datasource properties but you are using a Driver Adapter/.test(line);
}

// Splits the output into what matters and counted chatter.
function sift(lines) {
  const kept = []; // {line, index}
  const dropped = new Map(); // kind -> count
  const drop = (kind) => dropped.set(kind, (dropped.get(kind) || 0) + 1);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") continue;
    if (isAdapterWarningStart(line)) {
      drop("driver-adapter notice");
      while (i + 1 < lines.length && !/^We recommend you to remove those properties/.test(lines[i])) {
        i++;
        if (lines[i].trim() !== "") drop("driver-adapter notice");
      }
      continue;
    }
    const kind = chatterKind(line);
    if (kind) {
      drop(kind);
      continue;
    }
    kept.push({ line, index: i });
  }
  return { kept, dropped };
}

function chatterMarker(dropped) {
  let total = 0;
  const kinds = [];
  for (const [kind, n] of dropped) {
    total += n;
    kinds.push(kind);
  }
  if (total === 0) return null;
  return `… ${total} ${total === 1 ? "line" : "lines"} of ${kinds.join(", ")} omitted`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// Migration folder names listed under "have been applied" / "created and applied".
function migrationNamesAfter(lines, headingRe) {
  const start = lines.findIndex((l) => headingRe.test(l));
  if (start < 0) return null;
  const names = [];
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i];
    const m = /^\s*└─ (\d{8,}\S*)\/$/.exec(l);
    if (m) names.push(m[1]);
    else if (/^\s*└─ migration\.sql$/.test(l) || /^\s*\S*migrations\/$/.test(l) || l.trim() === "") continue;
    else break;
  }
  return names;
}

// ---------------------------------------------------------------------------------------
// Success

function shapeSuccess(tool, sub, lines) {
  const text = lines.join("\n");
  const facts = [];
  const generated = lines.find((l) => /Generated Prisma Client \(v[^)]*\)/.test(l));
  const clientFact = generated ? /Generated Prisma Client \(v[^)]*\)/.exec(generated)[0] : null;

  if (sub === "migrate deploy" || sub === "migrate reset" || sub === null) {
    const found = /^(\d+) migrations? found in /m.exec(text);
    const applied = migrationNamesAfter(lines, /^The following migration\(s\) have been applied:$/);
    if (/^No pending migrations to apply\.$/m.test(text)) {
      facts.push(found ? `no pending migrations (${plural(+found[1], "migration")} found)` : "no pending migrations");
    } else if (applied && applied.length > 0) {
      if (/^Database reset successful$/m.test(text)) facts.push("database reset");
      facts.push(`${plural(applied.length, "migration")} applied`);
    } else if (/^Database reset successful$/m.test(text)) {
      facts.push("database reset");
    }
  }
  if (sub === "migrate dev" || (sub === null && facts.length === 0)) {
    const created = migrationNamesAfter(lines, /^The following migration\(s\) have been created and applied from new schema changes:$/);
    if (created && created.length > 0) {
      facts.push(`${plural(created.length, "migration")} created and applied (${created.join(", ")})`);
    } else if (/^Already in sync, no schema change or pending migration was found\.$/m.test(text)) {
      facts.push("already in sync, no schema change or pending migration");
    } else {
      const applied = migrationNamesAfter(lines, /^The following migration\(s\) have been applied:$/);
      if (applied && applied.length > 0) facts.push(`${plural(applied.length, "migration")} applied`);
    }
  }
  if (sub === "migrate status" || (sub === null && facts.length === 0)) {
    if (/^Database schema is up to date!$/m.test(text)) {
      const found = /^(\d+) migrations? found in /m.exec(text);
      facts.push(found ? `database schema is up to date (${plural(+found[1], "migration")} found)` : "database schema is up to date");
    }
  }
  if (sub === "migrate resolve") {
    const l = lines.find((x) => /^Migration \S+ marked as (applied|rolled back)\.$/.test(x));
    if (l) facts.push(l.replace(/\.$/, ""));
  }
  if (sub === "db push" || (sub === null && facts.length === 0)) {
    const m = /Your database is now in sync with your Prisma schema\. Done in (\S+)/.exec(text);
    if (m) facts.push(`database in sync with the schema (done in ${m[1]})`);
    else if (/The database is already in sync with the Prisma schema\./.test(text)) facts.push("database already in sync with the schema");
  }
  if (sub === "validate" || (sub === null && facts.length === 0)) {
    const m = /^The schemas? at (\S+) (?:is|are) valid/m.exec(text);
    if (m) facts.push(`schema valid (${m[1]})`);
  }
  if (sub === "format" || (sub === null && facts.length === 0)) {
    const m = /^Formatted (\S+) in (\S+)/m.exec(text);
    if (m) facts.push(`formatted ${m[1]} (${m[2]})`);
    else if (/^Your schema files? (?:is|are) already formatted/m.test(text)) facts.push("already formatted");
  }
  if (clientFact) facts.push(sub === "generate" ? clientFact : `${clientFact.replace(/^Generated/, "generated")}`);

  if (facts.length === 0) {
    // Exit 0 but nothing we know how to read: show the real output.
    return { summary: `${tool}: output not recognized, shown raw`, renderMode: "raw" };
  }

  // Warnings that are not the usual notices (data loss accepted, preview features…) stay.
  const { kept } = sift(lines);
  const warnings = kept.map((k) => k.line).filter((l) => /^\s*(⚠️|warn(ing)?\b|\s*• )/i.test(l));
  const out = [`${tool}: OK — ${facts.join(", ")}`];
  for (const w of warnings.slice(0, 8)) out.push(clip(w));
  if (warnings.length > 8) out.push(`… ${warnings.length - 8} more warning lines omitted`);
  return { summary: out.join("\n"), renderMode: "summary" };
}

// ---------------------------------------------------------------------------------------
// Failure

const MAX_FULL_VALIDATION_ERRORS = 10; // with their source line
const MAX_LISTED_VALIDATION_ERRORS = 30; // message and location; beyond, counted by message
const MAX_FAILURE_LINES = 80;

function isBacktraceLine(line) {
  return (
    /^\s+\d+: [\w:<>]+/.test(line) || // "   0: sql_schema_connector::apply_migration::apply_script"
    /^\s+at \S+\.rs:\d+$/.test(line) // "      at schema-engine/…/apply_migration.rs:113"
  );
}

function isJsStackFrame(line) {
  return /^\s+at .+(:\d+:\d+\)?|\(native\)|\(node:[^)]*\))$/.test(line);
}

// Lines that say something went wrong; a failure with none of them is not read.
const TROUBLE = /^Error\b|^error: |^Drift detected|^Following migrations? (?:have|has) (?:failed|not yet been applied)|We found changes that cannot be executed|There might be data loss|failed|^Can't reach database server|P\d{4}/;

function shapeFailure(tool, sub, lines, exitCode) {
  const { kept, dropped } = sift(lines);
  if (!kept.some((k) => TROUBLE.test(k.line))) {
    return { summary: `${tool}: exit ${exitCode}, output not recognized, shown raw`, renderMode: "raw" };
  }

  const body = [];
  let backtrace = 0;
  let jsFrames = 0;
  let gutter = 0;
  const seenWith = new Set();
  let validation = 0;
  const foldedByMessage = new Map();
  const shownMessages = new Set();
  let pendingLocation = null; // "-->" line number of the current validation error
  let showSource = false;
  let listing = true;

  for (let k = 0; k < kept.length; k++) {
    const line = kept[k].line;

    // Validation errors: "error: <message>", "  -->  file:line", a code frame.
    if (/^error: /.test(line)) {
      validation++;
      const msg = line.slice("error: ".length);
      // The first errors in full; then new messages only, up to a limit; the rest are
      // counted by message.
      listing =
        validation <= MAX_FULL_VALIDATION_ERRORS ||
        (validation <= MAX_LISTED_VALIDATION_ERRORS && !shownMessages.has(msg));
      showSource = validation <= MAX_FULL_VALIDATION_ERRORS;
      pendingLocation = null;
      if (listing) {
        shownMessages.add(msg);
        body.push(clip(line));
      } else {
        foldedByMessage.set(msg, (foldedByMessage.get(msg) || 0) + 1);
      }
      continue;
    }
    const loc = /^\s*-->\s+\S+:(\d+)$/.exec(line);
    if (loc && validation > 0) {
      pendingLocation = loc[1];
      if (listing) body.push(line);
      continue;
    }
    const frame = /^\s*(\d+)? \| ?(.*)$/.exec(line);
    if (frame && validation > 0) {
      if (listing && showSource && frame[1] === pendingLocation) body.push(line);
      else gutter++;
      continue;
    }

    // Schema-engine backtraces: the migration they name is kept once.
    if (isBacktraceLine(line)) {
      backtrace++;
      continue;
    }
    const w = /^\s+with (\w+=.*)$/.exec(line);
    if (w) {
      if (seenWith.has(w[1])) backtrace++;
      else {
        seenWith.add(w[1]);
        body.push(line);
      }
      continue;
    }
    if (isJsStackFrame(line)) {
      jsFrames++;
      if (jsFrames <= 3) body.push(line);
      continue;
    }
    body.push(clip(line));
  }

  const out = [];
  // Header: the outcome, the codes and counts that the output states.
  const text = kept.map((k) => k.line).join("\n");
  const codes = [...new Set(text.match(/\bP\d{4}\b/g) || [])];
  const facts = [];
  const failedList = /^Following migrations? (?:have|has) failed:$/m.test(text);
  const pendingMatch = migrationsListedAfter(kept.map((k) => k.line), /^Following migrations? (?:have|has) not yet been applied:$/);
  if (/^Drift detected/m.test(text)) facts.push("drift detected");
  if (failedList) {
    const names = migrationsListedAfter(kept.map((k) => k.line), /^Following migrations? (?:have|has) failed:$/);
    facts.push(`${plural(names.length, "failed migration")}`);
  }
  if (pendingMatch.length > 0) facts.push(`${plural(pendingMatch.length, "migration")} not yet applied`);
  const count = /^Validation Error Count: (\d+)$/m.exec(text);
  if (count) facts.push(plural(+count[1], "validation error"));
  else if (validation > 0) facts.push(plural(validation, "validation error"));
  const outcome = facts.length > 0 && !/^Error\b/m.test(text) ? facts.join(", ") : ["FAILED", ...facts].join(", ");
  const exit = exitCode === null || exitCode === undefined ? "" : ` (exit ${exitCode})`;
  out.push(`${tool}: ${outcome}${codes.length ? ` — ${codes.join(", ")}` : ""}${exit}`);

  let shown = body;
  if (body.length > MAX_FAILURE_LINES) {
    const head = body.slice(0, 60);
    const tail = body.slice(-15);
    shown = [...head, `… ${body.length - 75} more lines omitted`, ...tail];
  }
  out.push(...shown);

  if (foldedByMessage.size > 0) {
    for (const [msg, n] of foldedByMessage) {
      out.push(`… ${plural(n, "more error")} omitted: ${msg}`);
    }
  }
  const hidden = [];
  if (gutter > 0) hidden.push(`${gutter} code-frame lines`);
  if (backtrace > 0) hidden.push(`${backtrace} schema-engine backtrace lines`);
  if (jsFrames > 3) hidden.push(`${jsFrames - 3} more stack frames`);
  if (hidden.length > 0) out.push(`… ${hidden.join(", ")} omitted`);
  const chatter = chatterMarker(dropped);
  if (chatter) out.push(chatter);
  // Failed, whatever the status: what the header says, or a migration that failed.
  const failed = outcome.startsWith("FAILED") || failedList;
  return { summary: out.join("\n"), renderMode: "summary", failed };
}

// Migration names listed one per line under a heading (migrate status).
function migrationsListedAfter(lines, headingRe) {
  const start = lines.findIndex((l) => headingRe.test(l));
  if (start < 0) return [];
  const names = [];
  for (let i = start + 1; i < lines.length && /^\s*\d{8,}\w*$/.test(lines[i]); i++) names.push(lines[i].trim());
  return names;
}

// ---------------------------------------------------------------------------------------

function guessSubcommand(lines) {
  const text = lines.join("\n");
  if (/have been created and applied from new schema changes|^Drift detected/m.test(text)) return "migrate dev";
  if (/^Database reset successful$/m.test(text)) return "migrate reset";
  if (/^Database schema is up to date!$|^Following migrations? (?:have|has) (?:failed|not yet been applied)/m.test(text)) return "migrate status";
  if (/^All migrations have been successfully applied\.$|^No pending migrations to apply\.$/m.test(text)) return "migrate deploy";
  if (/Your database is now in sync with your Prisma schema|We found changes that cannot be executed/.test(text)) return "db push";
  return null;
}

function shape(output, context) {
  const command = String(context?.command ?? "");
  const exitCode = typeof context?.exitCode === "number" ? context.exitCode : null;
  const lines = cleanLines(String(output ?? ""));
  const words = findPrismaInvocation(command);
  const sub = (words && knownSubcommand(words)) || guessSubcommand(lines);
  const tool = sub ? `prisma ${sub}` : "prisma";

  const saysError = lines.some((l) => /^Error\b|^error: |^Drift detected|^Following migrations? (?:have|has) failed:$/.test(l));
  const failed = (exitCode !== null && exitCode !== 0) || saysError;
  if (failed) return shapeFailure(tool, sub, lines, exitCode);
  return shapeSuccess(tool, sub, lines);
}

export default { meta, match, shape };
