#!/usr/bin/env node
'use strict';
// agent_loop: an agent's tool loop with plugline between the model and the shell.
//
// A real agent gets its tool calls from a model; this one replays four scripted calls, so that
// what plugline does at each step is plain to see:
//
//   session_start          plugins see the session begin
//   rm -rf build/          a native hook denies it
//   python -c '...'        a native hook rewrites it to python3, then it runs
//   printf '...sk-...'     it runs; a plugin redacts the key in post_tool_call
//   seq 1 3000             it runs; the model reads a shaped summary, not 3,000 lines
//   session_end
//
// It uses the *Async methods, as a server would: the event loop keeps running while plugins
// and commands do.
//
// Usage (from the repository root, after building into build/):
//
//   mkdir -p /tmp/agent-home/plugins
//   cp -r examples/plugins/redact-secrets /tmp/agent-home/plugins/
//   PLUGLINE_NODE_ADDON=build/lib/plugline.node node examples/node_host/agent_loop.js /tmp/agent-home
//
// The transcript goes to stdout; tests/examples/agent_loop.expected is what every language's
// agent loop prints.

const { execFile } = require('node:child_process');
const { promisify } = require('node:util');
const { Host } = require('../../bindings/node');

const run = promisify(execFile);

// What the model asks for, one tool call per turn.
const TOOL_CALLS = [
  'rm -rf build/',
  "python -c 'print(6 * 7)'",
  "printf 'OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl\\n'",
  'seq 1 3000',
];

const SESSION = 'ses_example';

// [native-hooks]
// Denies destructive commands before they run.
function guard(event, payload) {
  const { command } = JSON.parse(payload.arguments);
  if (command.includes('rm -rf')) {
    return { deny: true, reason: 'rm -rf is not allowed in this workspace' };
  }
  return null;  // no opinion
}

// Rewrites `python ...` to `python3 ...` (this machine has no `python`).
function python3(event, payload) {
  const { command } = JSON.parse(payload.arguments);
  if (command.startsWith('python ')) {
    return { arguments: JSON.stringify({ command: `python3 ${command.slice('python '.length)}` }) };
  }
  return null;
}
// [native-hooks]

// Runs `command` with /bin/sh, stdout and stderr interleaved as an agent's terminal tool sees
// them. Resolves to { output, exitCode }.
async function shell(command) {
  try {
    const { stdout } = await run('/bin/sh', ['-c', `${command} 2>&1`],
                                 { encoding: 'utf8', maxBuffer: 64 << 20 });
    return { output: stdout, exitCode: 0 };
  } catch (error) {
    if (typeof error.code !== 'number') throw error;
    return { output: error.stdout, exitCode: error.code };
  }
}

function lineCount(text) {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

// One tool call: resolves to what the model reads.
async function runTool(host, command) {
  console.log(`model wants: ${command}`);
  // [pre-tool-call]
  const decision = await host.dispatchAsync('pre_tool_call', {
    session_id: SESSION,
    tool: 'bash',
    arguments: JSON.stringify({ command }),
  });
  if (decision.denied) {
    console.log(`  denied by ${decision.denied_by}: ${decision.reason}`);
    return `blocked: ${decision.reason}`;
  }
  command = JSON.parse(decision.arguments ?? '{}').command;  // possibly rewritten
  // [pre-tool-call]
  for (const step of decision.plugins) {
    if (step.action === 'rewrite') console.log(`  rewritten by ${step.plugin}: ${command}`);
  }

  const { output, exitCode } = await shell(command);
  console.log(`  ran: exit ${exitCode}, ${lineCount(output)} lines`);

  // [post-tool-call]
  // post_tool_call first, so that a plugin's redaction reaches the summary and the stored
  // raw output alike; then shape what the plugins left.
  const after = await host.dispatchAsync('post_tool_call', {
    session_id: SESSION,
    tool: 'bash',
    arguments: JSON.stringify({ command }),
    result: output,
  });
  const result = after.result ?? output;
  const shaped = await host.shapeAsync(command, result, exitCode);
  // [post-tool-call]
  for (const step of after.plugins) {
    if (step.action === 'replace') console.log(`  redacted by ${step.plugin}`);
  }
  console.log(`  model reads (${shaped.shaper}, ${shaped.render_mode}, ` +
              `${shaped.tokens_raw} -> ${shaped.tokens_summary} tokens):`);
  for (const line of shaped.summary.replace(/\n$/, '').split('\n')) console.log(`    ${line}`);
  return shaped.summary;
}

async function main() {
  if (process.argv.length !== 3) {
    console.error('usage: agent_loop.js HOME');
    return 2;
  }
  // [host]
  const host = new Host({ home: process.argv[2] });
  try {
    for (const problem of host.diagnostics()) console.error(`plugline: ${problem}`);
    host.addHook('guard', ['pre_tool_call'], guard, { failClosed: true });
    host.addHook('python3', ['pre_tool_call'], python3);
    // [host]
    const started = await host.dispatchAsync('session_start', { session_id: SESSION });
    console.log(`session_start: ${started.plugins.length} hooks ran`);
    for (const command of TOOL_CALLS) await runTool(host, command);
    const ended = await host.dispatchAsync('session_end', { session_id: SESSION });
    console.log(`session_end: ${ended.plugins.length} hooks ran`);
  } finally {
    await host.closeAsync();
  }
  return 0;
}

main().then((code) => { process.exitCode = code; }, (error) => {
  console.error(`agent_loop: ${error.code ?? error.name}: ${error.message}`);
  process.exitCode = 1;
});
