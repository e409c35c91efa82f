/**
 * Starts a real S3-compatible server (moto from the oracle venv, through tools/oracle/moto_atomic_server.py:
 * moto's own app behind a lock, so its conditional PUTs are atomic as on Amazon S3) on a free 127.0.0.1 port
 * and stops it again, process group and all. moto honours If-None-Match / If-Match on PutObject and on
 * multipart completion, which is why it (and not an emulator that ignores them) backs every S3 test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { oracleFile, venvBin } from "./python.js";

/** Python: ask the kernel to SIGTERM us when our parent dies (Linux prctl), then exec the given program. */
const PDEATHSIG_EXEC = [
  "import ctypes, os, signal, sys",
  "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)",
  "os.execv(sys.executable, [sys.executable, sys.argv[1], *sys.argv[2:]])",
].join("; ");

export interface S3Server {
  endpoint: string;
  /** Storage options that point deltalite (and delta-rs) at this server. */
  storageOptions: Record<string, string>;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

export const TEST_ACCESS_KEY_ID = "deltalite-test-key";
export const TEST_SECRET_ACCESS_KEY = "deltalite-test-secret-do-not-leak";

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`moto_server exited early with code ${child.exitCode}`);
    try {
      const response = await fetch(`${endpoint}/moto-api/`);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`moto_server did not answer on ${endpoint} within ${timeoutMs} ms`);
}

/** Starts moto_server; call `stop()` when done (the vitest global set-up does). */
export async function startS3Server(): Promise<S3Server> {
  const server = oracleFile("moto_atomic_server.py");
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    // moto runs in its own process group (stop() kills the group) and with PR_SET_PDEATHSIG, so it also
    // dies when the test process does, even on a crash or a kill that skips the teardown.
    const child = spawn(
      venvBin("python"),
      ["-c", PDEATHSIG_EXEC, server, "-H", "127.0.0.1", "-p", String(port)],
      {
        stdio: ["ignore", "ignore", "pipe"],
        detached: true,
      },
    );
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    const endpoint = `http://127.0.0.1:${port}`;
    try {
      await waitUntilUp(endpoint, child, 20_000);
    } catch (error) {
      killGroup(child);
      if (attempt < 2) continue;
      throw new Error(`${(error as Error).message}\n${stderr}`);
    }
    return {
      endpoint,
      storageOptions: {
        AWS_ENDPOINT_URL: endpoint,
        AWS_ALLOW_HTTP: "true",
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: TEST_ACCESS_KEY_ID,
        AWS_SECRET_ACCESS_KEY: TEST_SECRET_ACCESS_KEY,
        AWS_S3_FORCE_PATH_STYLE: "true",
      },
      async createBucket(name: string) {
        const response = await fetch(`${endpoint}/${name}`, { method: "PUT" });
        if (!response.ok) throw new Error(`creating bucket ${name} failed: HTTP ${response.status}`);
      },
      async stop() {
        if (child.exitCode !== null) return;
        const exited = new Promise((r) => child.once("exit", r));
        killGroup(child);
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) killGroup(child, "SIGKILL");
      },
    };
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** The run's S3 server as seen from a test file: its storage options and a bucket creator. */
export function testS3(): {
  endpoint: string;
  storageOptions: Record<string, string>;
  createBucket(name: string): Promise<string>;
} {
  const endpoint = process.env.DELTALITE_TEST_S3_ENDPOINT;
  if (!endpoint) {
    throw new Error(
      "no S3 test server: DELTALITE_TEST_S3_ENDPOINT is unset (run the tests through vitest's global set-up)",
    );
  }
  return {
    endpoint,
    storageOptions: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_ALLOW_HTTP: "true",
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: TEST_ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: TEST_SECRET_ACCESS_KEY,
      AWS_S3_FORCE_PATH_STYLE: "true",
    },
    async createBucket(name: string) {
      const response = await fetch(`${endpoint}/${name}`, { method: "PUT" });
      if (!response.ok) throw new Error(`creating bucket ${name} failed: HTTP ${response.status}`);
      return name;
    },
  };
}
