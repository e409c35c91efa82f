#!/usr/bin/env node
import { runCli } from "./cli/framework.js";
/** The `deltalite` command: one verb per table operation (see `deltalite --help`). */
import { verbs } from "./cli/verbs.js";

const code = await runCli(process.argv.slice(2), verbs, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
});
process.exitCode = code;
