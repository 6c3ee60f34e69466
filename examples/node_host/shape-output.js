#!/usr/bin/env node
'use strict';
// A tiny agent host: runs a command the way an agent's terminal tool would, then prints what
// plugline would show the model instead of the full output.
//
//   PLUGLINE_NODE_ADDON=$PWD/build-node/lib/plugline.node \
//     node examples/node_host/shape-output.js 'seq 1 500'
//
// The raw output is kept under $PLUGLINE_HOME/outputs (default ~/.plugline/outputs); the
// summary names the file. The script exits with the command's exit code.
const { spawnSync } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const plugline = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

const command = process.argv.slice(2).join(' ');
if (!command) {
  console.error('usage: shape-output.js <command line>');
  process.exit(2);
}

// stdout and stderr interleaved into one pipe, as a terminal would show them; bytes as they
// are (plugline takes any bytes).
const run = spawnSync('/bin/sh', ['-c', `exec 2>&1\n${command}`], {
  stdio: ['ignore', 'pipe', 'inherit'],
  maxBuffer: 256 * 1024 * 1024,
});
if (run.error) {
  console.error(`shape-output: cannot run ${JSON.stringify(command)}: ${run.error.message}`);
  process.exit(1);
}

const host = new plugline.Host();
try {
  // run.status is null when the command was killed by a signal: the exit code is unknown.
  const result = host.shape(command, run.stdout, run.status);
  process.stdout.write(result.summary.endsWith('\n') ? result.summary : `${result.summary}\n`);
  console.error(`[plugline ${plugline.version()}] shaper ${result.shaper}, ${result.render_mode}, ` +
                `${result.raw_lines} lines, ${result.tokens_raw} → ${result.tokens_summary} tokens` +
                (result.fallback ? `, fallback: ${result.fallback}` : ''));
} catch (error) {
  console.error(`shape-output: ${error.code ?? error.name}: ${error.message}`);
  process.exitCode = 1;
} finally {
  host.close();
}
// Like a shell: 128 + the signal number when the command was killed.
if (process.exitCode === undefined) {
  process.exitCode = run.status ?? 128 + (os.constants.signals[run.signal] ?? 0);
}
