/**
 * vitest global set-up: one moto S3 server and one oracle worker for the whole run, both stopped in the
 * teardown (no process outlives the run). Test files find them through environment variables.
 */
import { startOracleWorker } from "./oracle.js";
import { startS3Server } from "./s3-server.js";

export default async function setup(): Promise<() => Promise<void>> {
  const [s3, oracle] = await Promise.all([startS3Server(), startOracleWorker()]);
  process.env.DELTALITE_TEST_S3_ENDPOINT = s3.endpoint;
  process.env.DELTALITE_ORACLE_PORT = String(oracle.port);
  return async () => {
    await Promise.all([s3.stop(), oracle.stop()]);
  };
}
