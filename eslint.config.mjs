import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "captures/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { require: "readonly", module: "writable", process: "readonly", console: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      "no-console": "error",
    },
  },
  { files: ["jest.config.js", "test/summary-reporter.js", "scripts/*.js", "test/e2e/engine/*.js"], rules: { "@typescript-eslint/no-require-imports": "off" } },
  // A Pulumi program in CommonJS, as a consumer writes one.
  { files: ["test/e2e/engine/*.js"], languageOptions: { globals: { exports: "writable" } } },
);
