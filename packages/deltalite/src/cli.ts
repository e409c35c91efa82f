#!/usr/bin/env node
/**
 * The `deltalite` command: one verb per table operation (see `deltalite --help`). Relative paths start at
 * the caller's directory (also under `pnpm -s deltalite`, see cli/paths.ts). Its stderr carries only its
 * own diagnostics: the AWS SDK's notice about future Node versions (printed on Node < 22 at the first S3
 * call) is switched off for this process unless the caller set the SDK's variable themselves.
 */
import { runCli } from "./cli/framework.js";
import { callerDirectory } from "./cli/paths.js";
import { verbs } from "./cli/verbs.js";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

const code = await runCli(process.argv.slice(2), verbs, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
  cwd: callerDirectory(process.env, process.cwd()),
});
process.exitCode = code;
