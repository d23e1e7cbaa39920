const { SummaryReporter } = require("@jest/reporters");

/**
 * Jest's summary, then the plain closing line CI reads ("N passed, N failed").
 * It replaces the summary that "default" would add last, so the line closes the run.
 */
class ClosingLineReporter extends SummaryReporter {
  onRunComplete(contexts, results) {
    super.onRunComplete(contexts, results);
    process.stderr.write(`tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`);
  }
}
module.exports = ClosingLineReporter;
