/**
 * Writes a build output whole or not at all (a temporary file renamed into
 * place): `npm pack` rebuilds the package while other test workers run the
 * CLI from dist/, and a CLI started during a build must read the old file or
 * the new one, never half of one.
 */
const { mkdirSync, renameSync, writeFileSync } = require("node:fs");
const { dirname } = require("node:path");

function writeWhole(file, data) {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, data);
  renameSync(temporary, file);
}

module.exports = { writeWhole };
