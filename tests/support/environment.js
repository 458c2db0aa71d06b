// The test environment: Node's, plus what a failure leaves behind. When a test (or a
// hook) fails, every failure source the test file has open (tests/support/failures.ts:
// browser sessions, platforms) writes its screenshots, page console and server log
// under test-output/<test file>/<test>/<attempt>/, and the folder is printed. The
// folder is gitignored; CI keeps it as its output.
const fs = require('node:fs');
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

const OUTPUT = path.resolve(__dirname, '..', '..', 'test-output');
const SOURCES = Symbol.for('rcloud.failureSources');

const safe = (s) => s.replace(/[^\p{L}\p{N}._-]+/gu, '_').slice(0, 120) || '_';

function fullName(test) {
  const names = [];
  for (let block = test; block && block.parent; block = block.parent) names.unshift(block.name);
  return names.join(' ');
}

class PlatformEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testFile = path.relative(path.resolve(__dirname, '..'), context.testPath).replace(/\.test\.tsx?$/, '');
  }

  async handleTestEvent(event) {
    if (event.name !== 'test_fn_failure' && event.name !== 'hook_failure') return;
    const sources = this.global[SOURCES];
    if (!sources || sources.size === 0) return;
    const test = event.test;
    const name = test ? fullName(test) : `${event.hook.type} ${event.hook.parent?.name || ''}`.trim();
    const dir = path.join(OUTPUT, this.testFile, safe(name), String(test?.invocations ?? 1));
    fs.mkdirSync(dir, { recursive: true });
    for (const source of sources) {
      try {
        await source.keep(dir);
      } catch (e) {
        fs.appendFileSync(path.join(dir, 'keep-errors.txt'), `${e && e.stack ? e.stack : e}\n`);
      }
    }
    process.stderr.write(`\n[test-output] ${this.testFile} › ${name}: screenshots, console and server log kept in ${path.relative(process.cwd(), dir)}\n`);
  }
}

module.exports = PlatformEnvironment;
