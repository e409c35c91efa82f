// Runs one measured child process and returns the JSON object on the last line of its stdout (stderr passes
// through). Each measurement is its own process so peak RSS belongs to that measurement alone.
import { spawn } from "node:child_process";

export function runJsonChild(command, args, options = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"], ...options });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code !== 0) {
        reject(new Error(`${command} ${args.join(" ").slice(0, 200)} exited with ${code ?? signal}\n${out}`));
        return;
      }
      const last = out.trim().split("\n").pop() ?? "";
      try {
        resolveRun(JSON.parse(last));
      } catch {
        reject(new Error(`${command} printed no JSON result: ${out.slice(-500)}`));
      }
    });
  });
}
