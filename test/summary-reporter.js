/**
 * Ends the run with the plain closing line CI reads ("N passed, N failed"),
 * after jest's own summary (which jest writes to stderr too).
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stderr.write(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
