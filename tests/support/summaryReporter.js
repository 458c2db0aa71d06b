// Prints the closing lines CI reads: "N retries used" (browser tests get one retry each,
// tests/support/retryBrowser.js; a run should use none) and "N passed, N failed".
// Also writes test-output/durations.txt, every file's wall time slowest first: the CI
// budget (20 minutes on 2 cores) is spent by a few files, and this says which.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    let retries = 0;
    for (const file of results.testResults) for (const test of file.testResults) retries += Math.max(0, (test.invocations ?? 1) - 1);
    const files = results.testResults
      .map((file) => ({ seconds: (file.perfStats.end - file.perfStats.start) / 1000, file: path.relative(process.cwd(), file.testFilePath) }))
      .sort((a, b) => b.seconds - a.seconds);
    const total = files.reduce((sum, f) => sum + f.seconds, 0);
    try {
      fs.mkdirSync('test-output', { recursive: true });
      fs.writeFileSync(
        path.join('test-output', 'durations.txt'),
        `${total.toFixed(0)} s summed over ${files.length} files\n${files.map((f) => `${f.seconds.toFixed(1).padStart(7)} ${f.file}`).join('\n')}\n`,
      );
    } catch {
      // A read-only checkout still gets its summary lines.
    }
    process.stdout.write(`\n${retries} retries used`);
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed\n`);
  }
}
module.exports = SummaryReporter;
