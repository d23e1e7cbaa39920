/**
 * esbuild as both build steps (bundle-undici.js, bundle-cli.js) call it: one
 * CommonJS file for the Node versions the package supports, whitespace and
 * syntax minified (identifiers are not renamed, so stack traces still name
 * the functions). A failed build ends the build step with exit 1; esbuild has
 * printed why.
 */
const { build } = require("esbuild");

function nodeBundle(options) {
  return build({
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
    ...options,
  }).catch(() => process.exit(1));
}

module.exports = { nodeBundle };
