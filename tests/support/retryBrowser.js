// Browser tests drive a real Chromium against a real server on a shared 2-core CI
// machine; a step that waits on the screen (a toast, a validation message) has been
// seen to miss once in a full run and pass on its own. One retry per test, with the
// first failure printed (logErrorsBeforeRetry), so a flake stays visible in the log and
// a real failure still fails. API, unit and DICOM tests are never retried.
if (/[\\/]tests[\\/]browser[\\/]/.test(expect.getState().testPath || '')) {
  jest.retryTimes(1, { logErrorsBeforeRetry: true });
}
