/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // test/e2e/engine needs the Pulumi engine built from Go modules: `npm run test:engine` runs it.
  testPathIgnorePatterns: ["/node_modules/", "/dist/", "/test/bench/", "/test/e2e/engine/"],
  // Transpile only: `npm test` type-checks the whole tree once with tsc first.
  transform: { "^.+\\.ts$": ["ts-jest", { diagnostics: false }] },
  // lib/undici-request.ts loads the undici bundle that `npm run build` writes (scripts/bundle-undici.js): tests use that same file.
  moduleNameMapper: { "^\\./undici-bundle$": "<rootDir>/dist/lib/undici-bundle.js" },
  // Pulumi's closure serializer (every dynamic resource, mocked programs included) requires each built-in
  // module once to recognise captured ones; node:test then starts Node's test reporter, which kept jest
  // workers alive after their tests ("failed to exit gracefully"). No provider captures node:test.
  setupFiles: ["<rootDir>/test/no-node-test.js"],
  testTimeout: 30000,
  maxWorkers: 2,
  // Each test file that loads @pulumi/pulumi gets its own copy, whose closure serializer opens an inspector
  // session that keeps the copy alive for the worker's life: a worker grew to 600 MB of heap (1.6 GB RSS)
  // and took longer to tear down than jest waits ("failed to exit gracefully"). Past this, a worker is
  // replaced between files.
  workerIdleMemoryLimit: "400MB",
  reporters: ["<rootDir>/node_modules/@jest/reporters/build/DefaultReporter.js", "<rootDir>/test/summary-reporter.js"],
};
