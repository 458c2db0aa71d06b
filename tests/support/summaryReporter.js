// Prints the closing lines CI reads: "N retries used" (browser tests get one retry each,
// tests/support/retryBrowser.js; a run should use none) and "N passed, N failed".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    let retries = 0;
    for (const file of results.testResults) for (const test of file.testResults) retries += Math.max(0, (test.invocations ?? 1) - 1);
    process.stdout.write(`\n${retries} retries used`);
    process.stdout.write(`\n${results.numPassedTests} passed, ${failed} failed\n`);
  }
}
module.exports = SummaryReporter;
