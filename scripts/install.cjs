'use strict';
// Install never fails. A prebuild (or an earlier build) that loads is used as is; otherwise one
// node-gyp build is attempted and its failure swallowed, because the pure-JS backend serves at run
// time and `backend()` explains why. CLAUDE_PS_SKIP_BUILD=1 skips the attempt.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');

function addonLoads() {
  try {
    require('node-gyp-build')(root);
    return true;
  } catch {
    return false;
  }
}

function main() {
  if (addonLoads()) return;
  if (process.env.CLAUDE_PS_SKIP_BUILD) {
    console.warn('claude-ps: no prebuild for this platform and building is disabled; the JS backend will serve.');
    return;
  }
  const gyp = process.env.npm_config_node_gyp;
  const result = gyp
    ? spawnSync(process.execPath, [gyp, 'rebuild'], { cwd: root, stdio: 'inherit' })
    : spawnSync('node-gyp', ['rebuild'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0 || !addonLoads()) {
    console.warn('claude-ps: the native addon could not be built; the JS backend will serve.');
  }
}

try {
  main();
} catch (err) {
  console.warn(`claude-ps: install step skipped (${err && err.message})`);
}
process.exit(0);
