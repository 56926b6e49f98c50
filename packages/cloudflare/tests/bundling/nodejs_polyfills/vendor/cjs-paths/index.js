// A CommonJS package requiring Node.js built-ins, one workerd has (path) and one it lacks (child_process).
const path = require("path");
const childProcess = require("child_process");

exports.joined = path.join("a", "b");
exports.hasSpawn = typeof childProcess.spawn;
