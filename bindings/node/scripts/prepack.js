'use strict';
// `npm pack` runs this first: the package carries two of plugline's own JS modules, which
// plugins added with Host#addPlugin use: Bun's `$` (src/js/modules/shell.mjs) and what every
// OpenCode plugin runner needs alike (opencode_common.mjs). In the source tree opencode.js
// reads them where they are; a packed copy reads lib/.
// `--clean` (npm's postpack) removes the copy again, so the tree never reads a stale one.
const fs = require('node:fs');
const path = require('node:path');

const sources = path.join(__dirname, '..', '..', '..', 'src', 'js', 'modules');
const lib = path.join(__dirname, '..', 'lib');
if (process.argv.includes('--clean')) {
  fs.rmSync(lib, { recursive: true, force: true });
} else {
  fs.mkdirSync(lib, { recursive: true });
  for (const name of ['shell.mjs', 'opencode_common.mjs']) {
    fs.copyFileSync(path.join(sources, name), path.join(lib, name));
  }
}
