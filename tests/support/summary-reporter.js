/**
 * Ends the jest output with one plain line, `jest: N passed, N failed, N skipped`, which CI reads
 * to tell that tests ran and how they went.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    process.stdout.write(
      `\njest: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`,
    );
  }
}

module.exports = SummaryReporter;
