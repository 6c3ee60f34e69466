// terraform.js: a plugline shaper for Terraform and OpenTofu (an example plugin).
//
// Shapes `terraform init|validate|plan|apply|destroy` (and `tofu …`).
//
// What the agent gets:
//   - plan: a header with the plan's own counts, then one line per resource action as
//     Terraform printed it (`# aws_s3_bucket.logs will be destroyed`) and the `Plan:` line;
//     attribute bodies are counted, not shown; very long plans keep the first actions and
//     count the rest by action.
//   - apply/destroy success: one line (`Apply complete! Resources: …`) and the Outputs.
//   - init/validate success: one line.
//   - errors: every Error diagnostic box as printed (title, `on file line N`, the source
//     line, the detail), the provisioner's output, the `Plan:` line; warnings by title.
//   - anything it does not recognize: renderMode "raw".
// Every line after the header is a line of the output or a counted "… " elision.

const meta = {
  name: "terraform",
  version: "1.0.0",
  description: "Terraform/OpenTofu: plan actions, apply results, error diagnostics",
  author: "plugline examples",
  tier: "community",
  outputKind: "terraform",
  priority: 110,
};

const SUBCOMMANDS = new Set(["init", "validate", "plan", "apply", "destroy"]);

function basename(word) {
  const i = word.lastIndexOf("/");
  return i >= 0 ? word.slice(i + 1) : word;
}

// Returns the subcommand of the first `terraform`/`tofu` in the command line, "" when it
// has none we know, or null when the command does not run terraform.
function terraformSubcommand(command) {
  for (const segment of command.split(/&&|\|\||[;|\n]/)) {
    const words = segment.trim().split(/\s+/).filter(Boolean);
    let i = 0;
    while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]) || ["env", "time", "sudo"].includes(words[i]))) i++;
    if (i >= words.length || !["terraform", "tofu"].includes(basename(words[i]))) continue;
    // Global options come before the subcommand: `terraform -chdir=infra plan`.
    for (let j = i + 1; j < words.length; j++) {
      if (words[j].startsWith("-")) continue;
      return SUBCOMMANDS.has(words[j]) ? words[j] : "";
    }
    return "";
  }
  return null;
}

const OUTPUT_SIGNALS = [
  [/^Plan: \d+ to add, \d+ to change, \d+ to destroy\.$/m, "Plan line"],
  [/^Terraform will perform the following actions:$/m, "plan actions"],
  [/^(Apply|Destroy) complete! Resources: /m, "apply complete"],
  [/^(Terraform|OpenTofu) has been successfully initialized!$/m, "initialized"],
  [/^No changes\. Your infrastructure matches the configuration\.$/m, "no changes"],
  [/^│ (Error|Warning): /m, "diagnostic box"],
  [/^Success! The configuration is valid/m, "configuration valid"],
];

function match(command, outputSnippet, exitCode) {
  const sub = terraformSubcommand(String(command ?? ""));
  if (sub) return { matched: true, confidence: 0.95, signals: [`command: terraform ${sub}`] };
  const snippet = String(outputSnippet ?? "").replace(ANSI, "");
  const signals = OUTPUT_SIGNALS.filter(([re]) => re.test(snippet)).map(([, name]) => name);
  if (signals.length > 0) return { matched: true, confidence: 0.6, signals };
  return { matched: false, confidence: 0 };
}

// ---------------------------------------------------------------------------------------

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
  return `${line.slice(0, 2048)} … ${line.length - 2560} characters of this line omitted … ${line.slice(-512)}`;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

// Diagnostics are boxes: "╷", "│ Error: title", "│ …", "╵". Older versions and some
// wrappers print "Error: title" at column 0 followed by indented detail.
function parseDiagnostics(lines) {
  const diags = []; // {severity, lines: [..], start, end}
  for (let i = 0; i < lines.length; i++) {
    const m = /^│ (Error|Warning): /.exec(lines[i]) || /^(Error|Warning): \S/.exec(lines[i]);
    if (!m) continue;
    const boxed = lines[i].startsWith("│");
    const d = { severity: m[1], lines: [lines[i]], start: i };
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j];
      if (boxed ? !l.startsWith("│") : /^(Error|Warning): \S/.test(l) || (l !== "" && !/^\s/.test(l))) break;
      if (boxed ? l.trim() !== "│" : l.trim() !== "") d.lines.push(l);
    }
    d.end = j - 1;
    diags.push(d);
    i = j - 1;
  }
  return diags;
}

// "  # terraform_data.service["api"] will be created" and its optional "  # (because …)".
const ACTION_RE = /^\s*# (\S.*?) (will be created|will be destroyed|will be updated in-place|must be replaced|will be replaced, as requested|will be read during apply|has moved to \S+|will be imported|will be forgotten|will no longer be managed by Terraform)/;

function planActions(lines) {
  const actions = [];
  for (let i = 0; i < lines.length; i++) {
    const m = ACTION_RE.exec(lines[i]);
    if (!m) continue;
    const a = { line: lines[i], action: m[2].startsWith("has moved") ? "has moved" : m[2], reasons: [] };
    while (i + 1 < lines.length && /^\s*# \(.*\)$/.test(lines[i + 1])) a.reasons.push(lines[++i]);
    actions.push(a);
  }
  return actions;
}

const MAX_ACTIONS = 40;
const FIRST_ACTIONS_WHEN_LONG = 20;
const MAX_DIAG_LINES = 25;
const MAX_ERRORS = 20;
const MAX_WARNINGS = 10;
const MAX_OUTPUT_LINES = 20;
const MAX_PROVISIONER_LINES = 20;

function pushActions(out, actions) {
  if (actions.length <= MAX_ACTIONS) {
    for (const a of actions) out.push(a.line, ...a.reasons);
    return;
  }
  const shown = actions.slice(0, FIRST_ACTIONS_WHEN_LONG);
  for (const a of shown) out.push(a.line, ...a.reasons);
  // Destroys and replacements are what an agent must not miss: all of them stay.
  const rest = actions.slice(FIRST_ACTIONS_WHEN_LONG);
  const risky = rest.filter((a) => /destroyed|replaced/.test(a.action));
  for (const a of risky.slice(0, MAX_ACTIONS)) out.push(a.line, ...a.reasons);
  const byAction = new Map();
  for (const a of rest) {
    if (risky.slice(0, MAX_ACTIONS).includes(a)) continue;
    byAction.set(a.action, (byAction.get(a.action) || 0) + 1);
  }
  for (const [action, n] of byAction) out.push(`… ${plural(n, "more resource")} that ${action} omitted`);
}

function shape(output, context) {
  const command = String(context?.command ?? "");
  const exitCode = typeof context?.exitCode === "number" ? context.exitCode : null;
  const lines = cleanLines(String(output ?? ""));
  const text = lines.join("\n");
  let sub = terraformSubcommand(command) || "";
  if (!sub) {
    if (/^Apply complete! |: (Creating|Modifying|Destroying)\.\.\.$/m.test(text)) sub = "apply";
    else if (/^Destroy complete! /m.test(text)) sub = "destroy";
    else if (/^Plan: |^No changes\. /m.test(text)) sub = "plan";
    else if (/has been successfully initialized!$/m.test(text)) sub = "init";
  }
  const tool = `terraform${sub ? " " + sub : ""}`;
  const exit = exitCode === null ? "" : ` (exit ${exitCode})`;

  const diags = parseDiagnostics(lines);
  const errors = diags.filter((d) => d.severity === "Error");
  const warnings = diags.filter((d) => d.severity === "Warning");
  const planLine = lines.find((l) => /^Plan: \d+ to add, \d+ to change, \d+ to destroy\.$/.test(l));
  // `plan -detailed-exitcode` exits 2 when there are changes: that is a success.
  const okExit = exitCode === null || exitCode === 0 || (sub === "plan" && exitCode === 2 && errors.length === 0);
  const actions = planActions(lines);

  const warningTitles = (out) => {
    for (const w of warnings.slice(0, MAX_WARNINGS)) {
      out.push(w.lines[0]);
      const on = w.lines.find((l) => /^│?\s+on \S+ line \d+/.test(l));
      if (on) out.push(on);
    }
    if (warnings.length > MAX_WARNINGS) out.push(`… ${plural(warnings.length - MAX_WARNINGS, "more warning")} omitted`);
  };

  // --- failure ---------------------------------------------------------------------------
  if (errors.length > 0 || !okExit) {
    if (errors.length === 0) {
      return { summary: `${tool}: exit ${exitCode}, output not recognized, shown raw`, renderMode: "raw" };
    }
    const facts = [plural(errors.length, "error")];
    if (warnings.length) facts.push(plural(warnings.length, "warning"));
    const created = lines.filter((l) => /: Creation complete after /.test(l)).length;
    const destroyed = lines.filter((l) => /: Destruction complete after /.test(l)).length;
    const modified = lines.filter((l) => /: Modifications complete after /.test(l)).length;
    const done = [];
    if (created) done.push(`${created} created`);
    if (modified) done.push(`${modified} modified`);
    if (destroyed) done.push(`${destroyed} destroyed`);
    if (done.length) facts.push(`${done.join(", ")} before the error`);
    const out = [`${tool}: FAILED — ${facts.join(", ")}${exit}`];

    const planningFailed = lines.find((l) => /^Planning failed\. /.test(l));
    if (planningFailed) out.push(planningFailed);
    if (planLine) out.push(planLine);
    // What a failing provisioner printed.
    const prov = lines.filter((l) => /^\S+ \((local-exec|remote-exec)\): /.test(l));
    out.push(...prov.slice(0, MAX_PROVISIONER_LINES).map(clip));
    if (prov.length > MAX_PROVISIONER_LINES) out.push(`… ${prov.length - MAX_PROVISIONER_LINES} more provisioner output lines omitted`);

    for (const e of errors.slice(0, MAX_ERRORS)) {
      out.push(...e.lines.slice(0, MAX_DIAG_LINES).map(clip));
      if (e.lines.length > MAX_DIAG_LINES) out.push(`… ${e.lines.length - MAX_DIAG_LINES} more lines of this error omitted`);
    }
    if (errors.length > MAX_ERRORS) {
      const titles = new Map();
      for (const e of errors.slice(MAX_ERRORS)) titles.set(e.lines[0], (titles.get(e.lines[0]) || 0) + 1);
      for (const [title, n] of titles) out.push(`… ${plural(n, "more error")} omitted: ${title.replace(/^│ /, "")}`);
    }
    warningTitles(out);
    const kept = new Set(out);
    const hidden = lines.filter((l) => l.trim() !== "" && !kept.has(l) && !/^[╷╵│]/.test(l)).length;
    const hiddenParts = [];
    if (actions.length) hiddenParts.push(plural(actions.length, "planned resource action"));
    if (hidden > 0) hiddenParts.push(`${hidden} lines of plan, progress and notes`);
    if (hiddenParts.length) out.push(`… ${hiddenParts.join("; ")} omitted`);
    return { summary: out.join("\n"), renderMode: "summary", failed: true };
  }

  // --- success ---------------------------------------------------------------------------
  const complete = lines.find((l) => /^(Apply|Destroy) complete! Resources: .*\.$/.test(l));
  if (complete) {
    const out = [`${tool}: OK — ${complete.replace(/\.$/, "")}`];
    warningTitles(out);
    const at = lines.indexOf("Outputs:");
    if (at >= 0) {
      const outputs = lines.slice(at + 1).filter((l) => l.trim() !== "");
      out.push("Outputs:");
      out.push(...outputs.slice(0, MAX_OUTPUT_LINES).map(clip));
      if (outputs.length > MAX_OUTPUT_LINES) out.push(`… ${outputs.length - MAX_OUTPUT_LINES} more output lines omitted`);
    }
    return { summary: out.join("\n"), renderMode: "summary" };
  }
  if (/^No changes\. Your infrastructure matches the configuration\.$/m.test(text)) {
    const out = [`${tool}: OK — no changes, infrastructure matches the configuration`];
    warningTitles(out);
    return { summary: out.join("\n"), renderMode: "summary" };
  }
  if (planLine) {
    const m = /^Plan: (.*)\.$/.exec(planLine);
    const out = [`${tool}: ${m[1]}`];
    pushActions(out, actions);
    out.push(planLine);
    warningTitles(out);
    const body = lines.filter((l) => l.trim() !== "").length - out.length + 1;
    if (body > 0) out.push(`… ${body} lines of resource attributes, outputs and notes omitted`);
    return { summary: out.join("\n"), renderMode: "summary" };
  }
  const initialized = lines.find((l) => /^(Terraform|OpenTofu) has been successfully initialized!$/.test(l));
  if (initialized) {
    const providers = lines.filter((l) => /^- (Installed|Using previously-installed|Using) \S+ v\S+|is built in to (Terraform|OpenTofu)$/.test(l)).length;
    const out = [`${tool}: OK — ${initialized.replace(/!$/, "")}${providers ? `, ${plural(providers, "provider")}` : ""}`];
    warningTitles(out);
    return { summary: out.join("\n"), renderMode: "summary" };
  }
  const valid = lines.find((l) => /^Success! The configuration is valid/.test(l));
  if (valid) {
    const out = [`${tool}: OK — ${valid}`];
    warningTitles(out);
    return { summary: out.join("\n"), renderMode: "summary" };
  }
  return { summary: `${tool}: output not recognized, shown raw`, renderMode: "raw" };
}

export default { meta, match, shape };
