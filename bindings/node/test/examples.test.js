'use strict';
// The Node examples: examples/node_host/agent_loop.js prints the agent-loop transcript every
// language's example must print (tests/examples/run_agent_loop.sh compares it), and
// examples/node_host/shape-output.js prints a command's summary with the command's exit code.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const repo = path.join(__dirname, '..', '..', '..');

test('agent_loop.js prints the transcript every language prints', () => {
  const ran = spawnSync('bash', [path.join(repo, 'tests', 'examples', 'run_agent_loop.sh'),
                                 process.execPath,
                                 path.join(repo, 'examples', 'node_host', 'agent_loop.js')],
                        { encoding: 'utf8', timeout: 120000 });
  assert.equal(ran.status, 0, ran.stdout + ran.stderr);
  assert.match(ran.stdout, /transcript as expected/);
});

test('shape-output.js summarizes a long output and exits with the command\'s code', (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'plugline-node-example-'));
  t.after(() => fs.rmSync(home, { recursive: true, force: true }));
  const script = path.join(repo, 'examples', 'node_host', 'shape-output.js');
  const env = { ...process.env, PLUGLINE_HOME: home };
  const long = spawnSync(process.execPath, [script, 'seq 1 500'], { encoding: 'utf8', env });
  assert.equal(long.status, 0, long.stderr);
  const lines = long.stdout.trimEnd().split('\n');
  assert.equal(lines[0], 'seq: exit 0, 500 lines');
  assert.ok(lines.some((line) => /498 lines like the ones around, but for their numbers, omitted/.test(line)), long.stdout);
  assert.match(lines.at(-1), new RegExp(`^full output: ${home}/outputs/`));
  const failed = spawnSync(process.execPath, [script, 'echo short; exit 3'], { encoding: 'utf8', env });
  assert.equal(failed.status, 3);
  assert.equal(failed.stdout, 'echo: FAILED (exit 3)\nshort\n');
});
