// ansible.js: a plugline shaper for `ansible-playbook` (an example plugin).
//
// Reads the default stdout callback's output: PLAY / TASK headers, per-host result lines
// (ok, changed, skipping, fatal, failed, unreachable, "...ignoring"), warnings, ERROR!
// blocks and the PLAY RECAP.
//
// What the agent gets:
//   - success: one line with the recap totals
//       ansible-playbook: OK — 3 hosts, 2 plays, 9 tasks: ok=14 changed=8 skipped=2
//   - failure: a header with the failed and unreachable host counts and the exit code; then
//     for every task where a host failed: its PLAY and TASK lines and each failure line as
//     printed (long result lines keep their head and tail); warnings; the recap lines of
//     the hosts that failed. ok/changed/skipping results are counted, not shown.
//   - ERROR! (syntax error, missing file…): the error block as printed.
//   - anything it does not recognize: renderMode "raw".
// Every line after the header is a line of the output or a counted "… " elision.

const meta = {
  name: "ansible",
  version: "1.0.0",
  description: "ansible-playbook: recap totals on success; failed tasks, hosts and messages on failure",
  author: "plugline examples",
  tier: "community",
  outputKind: "ansible",
  priority: 110,
};

// ---------------------------------------------------------------------------------------
// match

function basename(word) {
  const i = word.lastIndexOf("/");
  return i >= 0 ? word.slice(i + 1) : word;
}

// The program each `;`/`&&`/`|` segment runs, after env assignments and wrappers.
function programs(command) {
  const found = [];
  for (const segment of command.split(/&&|\|\||[;|\n]/)) {
    const words = segment.trim().split(/\s+/).filter(Boolean);
    let i = 0;
    while (
      i < words.length &&
      (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]) ||
        ["env", "time", "sudo", "nice", "timeout", "pipenv", "poetry", "uv"].includes(basename(words[i])) ||
        ["run", "exec"].includes(words[i]) ||
        (i > 0 && words[i].startsWith("-")) ||
        /^\d+[smh]?$/.test(words[i]))
    ) {
      i++;
    }
    if (i < words.length) found.push(basename(words[i]));
  }
  return found;
}

const OUTPUT_SIGNALS = [
  [/^PLAY RECAP \*+$/m, "PLAY RECAP"],
  [/^PLAY \[.*\] \*+$/m, "PLAY header"],
  [/^TASK \[.*\] \*+$/m, "TASK header"],
  [/^\S+\s+: ok=\d+\s+changed=\d+\s+unreachable=\d+\s+failed=\d+/m, "recap line"],
];

function match(command, outputSnippet, exitCode) {
  const progs = programs(String(command ?? ""));
  if (progs.includes("ansible-playbook")) {
    return { matched: true, confidence: 0.95, signals: ["command: ansible-playbook"] };
  }
  const snippet = String(outputSnippet ?? "");
  const signals = OUTPUT_SIGNALS.filter(([re]) => re.test(snippet)).map(([, name]) => name);
  // A PLAY header with a TASK header or a recap is ansible's own; one alone is not enough.
  if (signals.length >= 2) return { matched: true, confidence: 0.6, signals };
  return { matched: false, confidence: 0 };
}

// ---------------------------------------------------------------------------------------
// Reading the output

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
function clip(line) {
  if (line.length <= MAX_LINE) return line;
  const head = line.slice(0, 2048);
  const tail = line.slice(-512);
  return `${head} … ${line.length - 2560} characters of this line omitted … ${tail}`;
}

const PLAY_RE = /^PLAY \[(.*)\] \*+$/;
const RECAP_RE = /^PLAY RECAP \*+$/;
const TASK_RE = /^(?:TASK|RUNNING HANDLER) \[(.*)\] \*+$/;
const RESULT_RE = /^(ok|changed|skipping|fatal|failed|unreachable|included|rescued|ignored): \[([^\]]+)\]/;
const RECAP_LINE_RE =
  /^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)(?:\s+skipped=(\d+))?(?:\s+rescued=(\d+))?(?:\s+ignored=(\d+))?/;

// One pass over the output: events with the line they came from.
function parse(lines) {
  const plays = [];
  const tasks = [];
  const recap = [];
  const warnings = [];
  const errorBlocks = [];
  const results = []; // {status, host, line, block: [continuation lines], task, play, ignored}
  let play = null;
  let task = null;
  let inRecap = false;
  let other = 0;
  let exception = null;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.trim() === "") continue;
    let m;
    if ((m = PLAY_RE.exec(line))) {
      play = { line, name: m[1] };
      plays.push(play);
      task = null;
      inRecap = false;
      continue;
    }
    if (RECAP_RE.test(line)) {
      inRecap = true;
      recap.header = line;
      continue;
    }
    if ((m = TASK_RE.exec(line))) {
      task = { line, name: m[1], play };
      tasks.push(task);
      continue;
    }
    if (inRecap && (m = RECAP_LINE_RE.exec(line))) {
      recap.push({
        line,
        host: m[1],
        ok: +m[2],
        changed: +m[3],
        unreachable: +m[4],
        failed: +m[5],
        skipped: +(m[6] || 0),
        rescued: +(m[7] || 0),
        ignored: +(m[8] || 0),
      });
      continue;
    }
    if (/^ERROR! /.test(line)) {
      // The block runs to the next PLAY/TASK header or the end.
      const block = [line];
      while (i + 1 < lines.length && !PLAY_RE.test(lines[i + 1]) && !TASK_RE.test(lines[i + 1]) && !RECAP_RE.test(lines[i + 1])) {
        i++;
        if (lines[i].trim() !== "") block.push(lines[i]);
      }
      errorBlocks.push(block);
      continue;
    }
    if (/^\[(WARNING|DEPRECATION WARNING|ERROR)\]: /.test(line)) {
      warnings.push(line);
      continue;
    }
    if (/^\.\.\.ignoring$/.test(line)) {
      for (let r = results.length - 1; r >= 0 && results[r].task === task; r--) {
        if (results[r].status === "fatal" || results[r].status === "failed") {
          results[r].ignored = true;
        }
      }
      continue;
    }
    if (/^An exception occurred during task execution\./.test(line)) {
      // Printed just before the failure it explains: kept with it.
      exception = line;
      continue;
    }
    if ((m = RESULT_RE.exec(line))) {
      const result = { status: m[1], host: m[2], line, block: [], task, play, ignored: false, exception };
      exception = null;
      if (/UNREACHABLE!/.test(line)) result.status = "unreachable";
      // "=> {" opens a multi-line result that closes with "}" in column 0.
      if (/=> \{$/.test(line)) {
        while (i + 1 < lines.length) {
          i++;
          result.block.push(lines[i]);
          if (lines[i] === "}") break;
        }
      }
      results.push(result);
      continue;
    }
    other++;
  }
  return { plays, tasks, recap, warnings, errorBlocks, results, other };
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// ---------------------------------------------------------------------------------------
// shape

const MAX_FAILURES_PER_TASK = 10;
const MAX_BLOCK_LINES = 20;
const MAX_RECAP_LINES = 20;
const MAX_ERROR_BLOCK_LINES = 40;

function shape(output, context) {
  const exitCode = typeof context?.exitCode === "number" ? context.exitCode : null;
  const exit = exitCode === null ? "" : ` (exit ${exitCode})`;
  const lines = cleanLines(String(output ?? ""));
  const p = parse(lines);

  const hostsFailed = p.recap.filter((h) => h.failed > 0).length;
  const hostsUnreachable = p.recap.filter((h) => h.unreachable > 0).length;
  const openFailures = p.results.filter((r) => (r.status === "fatal" || r.status === "failed" || r.status === "unreachable") && !r.ignored);
  const ok = exitCode === 0 || (exitCode === null && p.recap.length > 0);

  // --- success ---------------------------------------------------------------------------
  if (ok && p.recap.length > 0 && hostsFailed === 0 && hostsUnreachable === 0 && p.errorBlocks.length === 0) {
    const sum = (key) => p.recap.reduce((n, h) => n + h[key], 0);
    const totals = [`ok=${sum("ok")}`, `changed=${sum("changed")}`];
    for (const key of ["skipped", "rescued", "ignored"]) if (sum(key) > 0) totals.push(`${key}=${sum(key)}`);
    return {
      summary: `ansible-playbook: OK — ${plural(p.recap.length, "host")}, ${plural(p.plays.length, "play")}, ${plural(p.tasks.length, "task")}: ${totals.join(" ")}`,
      renderMode: "summary",
    };
  }

  // --- ERROR! before any play (syntax error, missing inventory or file) ------------------
  if (p.errorBlocks.length > 0 && p.plays.length === 0) {
    const out = [`ansible-playbook: error${exit}`];
    for (const w of p.warnings.slice(0, 10)) out.push(clip(w));
    for (const block of p.errorBlocks) {
      out.push(...block.slice(0, MAX_ERROR_BLOCK_LINES).map(clip));
      if (block.length > MAX_ERROR_BLOCK_LINES) out.push(`… ${block.length - MAX_ERROR_BLOCK_LINES} more lines of the error omitted`);
    }
    return { summary: out.join("\n"), renderMode: "summary", failed: true };
  }

  // Nothing we can read: a failure with no recap and no failed task, or exit 0 without a
  // recap (--list-tasks, --syntax-check): show the real output.
  if (p.recap.length === 0 && openFailures.length === 0) {
    return { summary: `ansible-playbook: output not recognized${exit}, shown raw`, renderMode: "raw" };
  }

  // --- failure -----------------------------------------------------------------------------
  const facts = [];
  if (hostsFailed > 0) facts.push(`${plural(hostsFailed, "host")} failed`);
  if (hostsUnreachable > 0) facts.push(`${hostsUnreachable} unreachable`);
  if (p.recap.length === 0 && openFailures.length > 0) facts.push(plural(openFailures.length, "failure"));
  if (facts.length === 0) facts.push(p.errorBlocks.length > 0 ? "error" : "failed");
  const out = [`ansible-playbook: ${facts.join(", ")}${exit}`];

  let shownPlay = null;
  let shownTask = null;
  let perTask = 0;
  let hiddenInTask = 0;
  // Hosts that failed in this task with the very same result as a host already shown.
  let sameAs = new Map(); // result text without the host -> [hosts]
  const flushHidden = () => {
    for (const hosts of sameAs.values()) {
      if (hosts.length > 0) out.push(`… the same failure on ${plural(hosts.length, "more host")} omitted: ${hosts.join(", ")}`);
    }
    sameAs = new Map();
    if (hiddenInTask > 0) out.push(`… ${plural(hiddenInTask, "more failure")} in this task omitted`);
    hiddenInTask = 0;
  };
  for (const r of openFailures) {
    if (r.task !== shownTask) {
      flushHidden();
      if (r.play && r.play !== shownPlay) {
        out.push(r.play.line);
        shownPlay = r.play;
      }
      if (r.task) out.push(r.task.line);
      shownTask = r.task;
      perTask = 0;
    }
    const key = [r.exception, r.line.replace(`[${r.host}]`, "[]"), ...r.block].join("\n");
    if (sameAs.has(key)) {
      sameAs.get(key).push(r.host);
      continue;
    }
    sameAs.set(key, []);
    perTask++;
    if (perTask > MAX_FAILURES_PER_TASK) {
      hiddenInTask++;
      continue;
    }
    if (r.exception) out.push(clip(r.exception));
    out.push(clip(r.line));
    const block = r.block.filter((l) => l.trim() !== "");
    out.push(...block.slice(0, MAX_BLOCK_LINES).map(clip));
    if (block.length > MAX_BLOCK_LINES) out.push(`… ${block.length - MAX_BLOCK_LINES} more lines of this result omitted`);
  }
  flushHidden();

  for (const block of p.errorBlocks) {
    out.push(...block.slice(0, MAX_ERROR_BLOCK_LINES).map(clip));
    if (block.length > MAX_ERROR_BLOCK_LINES) out.push(`… ${block.length - MAX_ERROR_BLOCK_LINES} more lines of the error omitted`);
  }
  const warnings = [...new Set(p.warnings)];
  for (const w of warnings.slice(0, 10)) out.push(clip(w));
  if (warnings.length > 10) out.push(`… ${warnings.length - 10} more warnings omitted`);
  const noMoreHosts = lines.find((l) => /^NO MORE HOSTS LEFT \*+$/.test(l));
  if (noMoreHosts) out.push(noMoreHosts);

  const ignored = p.results.filter((r) => r.ignored);
  const quiet = p.results.length - openFailures.length - ignored.length;
  const hidden = [];
  if (quiet > 0) hidden.push(plural(quiet, "ok/changed/skipped result"));
  if (ignored.length > 0) hidden.push(plural(ignored.length, "ignored failure"));
  const tasksShown = new Set(openFailures.map((r) => r.task)).size;
  if (p.tasks.length > tasksShown) hidden.push(plural(p.tasks.length - tasksShown, "other task header"));
  if (p.other > 0) hidden.push(plural(p.other, "other line"));
  if (hidden.length > 0) out.push(`… ${hidden.join(", ")} omitted`);

  if (p.recap.length > 0) {
    out.push(p.recap.header);
    const bad = p.recap.filter((h) => h.failed > 0 || h.unreachable > 0);
    const good = p.recap.filter((h) => !(h.failed > 0 || h.unreachable > 0));
    if (p.recap.length <= MAX_RECAP_LINES) {
      out.push(...p.recap.map((h) => h.line));
    } else {
      out.push(...bad.slice(0, MAX_RECAP_LINES).map((h) => h.line));
      const more = p.recap.length - Math.min(bad.length, MAX_RECAP_LINES);
      if (more > 0) out.push(`… ${plural(more, "more recap line")} omitted (${good.length} without failures)`);
    }
  }
  return { summary: out.join("\n"), renderMode: "summary", failed: true };
}

export default { meta, match, shape };
