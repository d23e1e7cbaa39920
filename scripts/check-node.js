/* global __dirname */
/**
 * First step of `npm test` and `npm start`: on a Node.js older than
 * package.json's `engines`, one line naming the Node.js needed, then exit 2
 * (the usage code, as `agent-user` exits on an old Node), before a build and
 * a test run that would fail in dozens of places for that one reason.
 * Written for the oldest Node.js that may run it: CommonJS, no newer syntax.
 */
var fs = require("fs");
var path = require("path");

var engines = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")).engines.node;
var wanted = /^>=\s*(\d+)(?:\.(\d+))?/.exec(engines);
if (!wanted) {
  process.stderr.write("check-node: package.json engines.node " + JSON.stringify(engines) + " is not of the form >=MAJOR[.MINOR]\n");
  process.exit(70);
}
var need = [Number(wanted[1]), Number(wanted[2] || 0)];
var have = process.versions.node.split(".").map(Number);
if (have[0] < need[0] || (have[0] === need[0] && have[1] < need[1])) {
  process.stderr.write(
    "agent-user-kit needs Node.js " + (need[1] ? need.join(".") : need[0]) + " or later (22 and 24 are the supported LTS lines); this is " + process.version + ". Switch Node.js (nvm use 22, or fnm use 22) and run it again.\n",
  );
  process.exit(2);
}
