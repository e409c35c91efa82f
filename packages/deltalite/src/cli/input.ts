/**
 * CLI data input: `--input <file.parquet | file.arrow | ->`, repeatable. Parquet streams row group by row
 * group through parquet-stream's reader; `.arrow` / `.arrows` / `.ipc` / `.feather` files may be Arrow IPC
 * files or streams. `-` is stdin, sniffed by its first bytes: `PAR1` is Parquet (buffered to a temporary file,
 * removed when the process ends, since Parquet's footer comes last), anything else an Arrow IPC stream or
 * file. Several inputs become one source (one commit) after their schemas are checked equal — before a
 * single row is read.
 */
import { createReadStream, rmSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import type { BatchSource } from "@deltalite/data-files";
import { DeltaLiteError, DeltaLiteSchemaMismatchError } from "@deltalite/errors";
import { LocalFileStore } from "@deltalite/object-store";
import { openParquetReader } from "@deltalite/parquet-stream";
import { type RecordBatch, RecordBatchReader, type Schema } from "apache-arrow";
import { usageError } from "./framework.js";
import type { Progress } from "./progress.js";

/** A source with its schema known up front (every opened input has one). */
export interface OpenedInput {
  name: string;
  schema: Schema;
  batches(): AsyncIterable<RecordBatch>;
}

const PARQUET_MAGIC = "PAR1";

async function openParquet(file: string, name: string): Promise<OpenedInput> {
  const size = (await fs.stat(file)).size;
  const reader = await openParquetReader(new LocalFileStore(path.dirname(file)), path.basename(file), {
    size,
  });
  return { name, schema: reader.arrowSchema, batches: () => reader.readRowGroups({}) };
}

async function openArrow(bytes: AsyncIterable<Uint8Array>, name: string): Promise<OpenedInput> {
  // RecordBatchReader.from tells an IPC file from a stream; it is an async iterable of RecordBatches.
  let reader: RecordBatchReader;
  try {
    reader = (await RecordBatchReader.from(bytes as never)) as unknown as RecordBatchReader;
    await reader.open();
  } catch (error) {
    const what = name === "stdin" ? "stdin is neither Parquet (no PAR1 magic) nor" : `${name} is not`;
    throw new DeltaLiteError("generic", `${what} an Arrow IPC stream or file (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (!reader.schema) throw new DeltaLiteError("generic", `${name}: no Arrow IPC data`);
  return { name, schema: reader.schema, batches: () => reader as unknown as AsyncIterable<RecordBatch> };
}

/** The first bytes of `stream` (at least `count` unless it ends first) and an iterable of all its bytes. */
async function peek(stream: AsyncIterable<Uint8Array>, count: number) {
  const iterator = stream[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let have = 0;
  while (have < count) {
    const next = await iterator.next();
    if (next.done) break;
    const chunk = typeof next.value === "string" ? Buffer.from(next.value) : next.value;
    head.push(chunk);
    have += chunk.byteLength;
  }
  async function* all(): AsyncIterable<Uint8Array> {
    yield* head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { first: Buffer.concat(head).subarray(0, count), all: all() };
}

async function openStdin(stdin: NodeJS.ReadableStream): Promise<OpenedInput> {
  const { first, all } = await peek(stdin as unknown as AsyncIterable<Uint8Array>, 4);
  if (first.byteLength === 0) {
    throw usageError("--input -: stdin is empty (expected an Arrow IPC stream or a Parquet file)");
  }
  if (first.toString("latin1") !== PARQUET_MAGIC) return openArrow(all, "stdin");
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "deltalite-stdin-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "stdin.parquet");
  const handle = await fs.open(file, "w");
  try {
    for await (const chunk of all) await handle.write(chunk);
  } finally {
    await handle.close();
  }
  return openParquet(file, "stdin");
}

/** One `--input`, checked: stdin, or an existing file of a known kind. */
export interface InputSpec {
  name: string;
  kind: "stdin" | "parquet" | "arrow";
  file?: string;
}

/**
 * Checks every `--input` (required; stdin at most once; files exist and have a known extension; relative
 * paths from the caller's directory) without reading data — so a verb can refuse them before any table I/O.
 */
export async function checkInputs(
  inputs: readonly string[] | undefined,
  resolve: (p: string) => string,
): Promise<InputSpec[]> {
  if (!inputs || inputs.length === 0) {
    throw usageError("--input is required (a .parquet or .arrow file, or - for stdin; repeatable)");
  }
  if (inputs.filter((i) => i === "-").length > 1) throw usageError("--input - (stdin) can be given once");
  const specs: InputSpec[] = [];
  for (const input of inputs) {
    if (input === "-") {
      specs.push({ name: "stdin", kind: "stdin" });
      continue;
    }
    const file = resolve(input);
    const kind = file.endsWith(".parquet")
      ? "parquet"
      : /\.(arrow|arrows|ipc|feather)$/.test(file)
        ? "arrow"
        : undefined;
    if (!kind)
      throw usageError(`--input ${input}: expected a .parquet or .arrow/.arrows file, or - for stdin`);
    const exists = await fs.stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!exists) throw usageError(`--input ${input}: no such file (${file})`);
    specs.push({ name: input, kind, file });
  }
  return specs;
}

function openOne(spec: InputSpec, stdin: NodeJS.ReadableStream): Promise<OpenedInput> {
  if (spec.kind === "stdin" || spec.file === undefined) return openStdin(stdin);
  if (spec.kind === "parquet") return openParquet(spec.file, spec.name);
  return openArrow(createReadStream(spec.file), spec.name);
}

function describeFields(schema: Schema): string[] {
  return schema.fields.map((f) => `${f.name}: ${String(f.type)}`);
}

/** Throws schema_mismatch naming the first input whose columns or types differ from the first one's. */
function checkSameSchema(inputs: readonly OpenedInput[]): void {
  const [first, ...others] = inputs;
  if (!first) return;
  const expected = describeFields(first.schema);
  for (const other of others) {
    const actual = describeFields(other.schema);
    const missing = expected.filter((f) => !actual.includes(f));
    const extra = actual.filter((f) => !expected.includes(f));
    if (missing.length === 0 && extra.length === 0 && actual.join() === expected.join()) continue;
    const detail =
      missing.length + extra.length === 0
        ? "the same columns in another order"
        : [
            missing.length > 0 ? `lacks ${missing.join(", ")}` : "",
            extra.length > 0 ? `has ${extra.join(", ")}` : "",
          ]
            .filter(Boolean)
            .join(" and ");
    throw new DeltaLiteSchemaMismatchError(
      `--input ${other.name} does not have the schema of --input ${first.name}: it ${detail}; nothing was written`,
    );
  }
}

/** Opens checked inputs as one source; `progress` counts the rows and Arrow bytes as they are read. */
export async function openInputs(
  specs: readonly InputSpec[],
  progress: Progress,
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<BatchSource> {
  const opened: OpenedInput[] = [];
  for (const spec of specs) opened.push(await openOne(spec, stdin));
  checkSameSchema(opened);
  async function* batches(): AsyncIterable<RecordBatch> {
    for (const input of opened) {
      for await (const batch of input.batches()) {
        progress.add({ rows: batch.numRows, bytes: batch.data.byteLength });
        yield batch;
      }
    }
  }
  return { schema: opened[0]!.schema, [Symbol.asyncIterator]: () => batches()[Symbol.asyncIterator]() };
}
