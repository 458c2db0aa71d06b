// Jest runs every layer: unit (server, client logic), API (app.inject on PGlite and,
// with TEST_DATABASE_URL, PostgreSQL), browser (playwright-core + Debian Chromium).
/** @type {import('jest').Config} */
module.exports = {
  // Node's, plus screenshots, page console and server log kept on a failure (test-output/).
  testEnvironment: '<rootDir>/tests/support/environment.js',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts', '**/*.test.tsx'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tests/tsconfig.json' }],
    // janode (the video room's Janus client) ships ES modules only: the server imports it
    // natively (server/video/janode.ts), which jest's sandbox allows only under
    // --experimental-vm-modules (npm test); a plain `npx jest` requires it, made CommonJS.
    '/node_modules/janode/.+\\.js$': '<rootDir>/tests/support/esmToCjs.js',
  },
  transformIgnorePatterns: ['/node_modules/(?!janode/)'],
  moduleNameMapper: {
    '^@/(.*)$': '<rootDir>/src/$1',
    '\\.(css|less)$': '<rootDir>/tests/support/styleStub.js',
    // @formily/antd-v5's FormButtonGroup pulls in react-sticky-box, shipped as ES modules
    // only; no schema form uses it, and jest (CommonJS) cannot load it. Any test that
    // registers the app's features loads the form registry, hence one stub for all.
    '^react-sticky-box$': '<rootDir>/tests/support/stickyBoxStub.js',
  },
  globalSetup: '<rootDir>/tests/support/globalSetup.mjs',
  setupFilesAfterEnv: ['<rootDir>/tests/support/retryBrowser.js'],
  reporters: ['default', '<rootDir>/tests/support/summaryReporter.js'],
  // Browser tests start a server and Chromium; give them room without hiding hangs.
  testTimeout: 60000,
  maxWorkers: 2,
};
