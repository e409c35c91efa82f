/**
 * Client of the oracle worker (tools/oracle/worker.py): delta-rs and pyarrow as the reference the tests
 * compare against. `startOracleWorker` runs once per test run (vitest global set-up); `connectOracle`
 * opens a connection from any test file to that worker, whose port travels in DELTALITE_ORACLE_PORT.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createConnection, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { oracleFile, venvBin } from "./python.js";

export interface OracleWorker {
  port: number;
  stop(): Promise<void>;
}

/** Starts the worker and waits for it to report its port. */
export async function startOracleWorker(): Promise<OracleWorker> {
  const child: ChildProcess = spawn(venvBin("python"), [oracleFile("worker.py")], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) => {
      lines.close();
      resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once("exit", (code) => reject(new Error(`oracle worker exited with code ${code}`)));
  });
  return {
    port,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.stdin?.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

export class OracleError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly trace: string,
  ) {
    super(`${type}: ${message}`);
    this.name = "OracleError";
  }
}

export interface Oracle {
  call<T = unknown>(op: string, args?: Record<string, unknown>): Promise<T>;
  close(): void;
}

/** Connects to the running worker (port from the argument or DELTALITE_ORACLE_PORT). */
export async function connectOracle(port = Number(process.env.DELTALITE_ORACLE_PORT)): Promise<Oracle> {
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error(
      "no oracle worker: DELTALITE_ORACLE_PORT is unset (run the tests through vitest's global set-up)",
    );
  }
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = createConnection({ host: "127.0.0.1", port }, () => resolve(s));
    s.once("error", reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const lines = createInterface({ input: socket });
  lines.on("line", (line) => {
    const msg = JSON.parse(line) as {
      id: number;
      ok: boolean;
      result?: unknown;
      error?: { type: string; message: string; trace: string };
    };
    const waiter = pending.get(msg.id);
    pending.delete(msg.id);
    if (!waiter) return;
    if (msg.ok) waiter.resolve(msg.result);
    else waiter.reject(new OracleError(msg.error!.type, msg.error!.message, msg.error!.trace));
  });
  socket.on("close", () => {
    for (const waiter of pending.values()) waiter.reject(new Error("oracle connection closed"));
    pending.clear();
  });
  return {
    call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        socket.write(`${JSON.stringify({ id, op, args })}\n`);
      });
    },
    close() {
      socket.end();
    },
  };
}
