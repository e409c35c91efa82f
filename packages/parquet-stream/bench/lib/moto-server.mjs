// Starts moto_server (tools/oracle/.venv) on a free 127.0.0.1 port in its own process group for one benchmark
// run, creates buckets with unsigned PUTs, and stops the whole group (SIGTERM, then SIGKILL) at the end.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

export const BENCH_CREDENTIALS = { accessKeyId: "bench", secretAccessKey: "bench", region: "us-east-1" };

async function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** @returns {Promise<{ endpoint: string, storageOptions: Record<string,string>, createBucket(name: string): Promise<void>, stop(): Promise<void> }>} */
export async function startMotoServer(venvBin) {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(join(venvBin, "moto_server"), ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: "ignore",
    detached: true,
  });
  const killGroup = (signal) => {
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  };
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    killGroup("SIGTERM");
    const timer = setTimeout(() => killGroup("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  const onExit = () => killGroup("SIGKILL");
  process.once("exit", onExit);
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}`);
      try {
        const response = await fetch(`${endpoint}/`);
        if (response.status < 500) break;
      } catch {
        // not listening yet
      }
      if (i > 150) throw new Error("moto_server did not start within 30 s");
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    pid: child.pid,
    storageOptions: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_ALLOW_HTTP: "true",
      AWS_REGION: BENCH_CREDENTIALS.region,
      AWS_ACCESS_KEY_ID: BENCH_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: BENCH_CREDENTIALS.secretAccessKey,
      AWS_S3_FORCE_PATH_STYLE: "true",
    },
    async createBucket(name) {
      const response = await fetch(`${endpoint}/${name}`, { method: "PUT" });
      if (!response.ok) throw new Error(`creating bucket ${name} failed: HTTP ${response.status}`);
    },
    async stop() {
      process.removeListener("exit", onExit);
      await stop();
    },
  };
}
