/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  testPathIgnorePatterns: ["/node_modules/", "/dist/", "/test/bench/"],
  // Transpile only: `npm test` type-checks the whole tree once with tsc first.
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
  testTimeout: 30000,
  maxWorkers: 2,
  reporters: ["default", "<rootDir>/test/summary-reporter.js"],
};
