'use strict';
// `npm pack` runs this first: the package carries plugline's own module for Bun's `$`
// (src/js/modules/shell.mjs), which plugins added with Host#addPlugin get in their context.
// In the source tree opencode.js reads it where it is; a packed copy reads lib/shell.mjs.
// `--clean` (npm's postpack) removes the copy again, so the tree never reads a stale one.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', '..', '..', 'src', 'js', 'modules', 'shell.mjs');
const target = path.join(__dirname, '..', 'lib', 'shell.mjs');
if (process.argv.includes('--clean')) {
  fs.rmSync(path.dirname(target), { recursive: true, force: true });
} else {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(source, target);
}
