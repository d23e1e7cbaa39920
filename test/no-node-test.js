/* global jest */
// See jest.config.js: a stand-in for node:test in every test file's module registry.
jest.mock("node:test", () => ({}));
