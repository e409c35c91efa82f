/**
 * Change-data files as delta-rs writes them for a table with `delta.enableChangeDataFeed=true`: per
 * partition, rows of the data-file columns followed by `_change_type` (`insert`, `update_preimage`,
 * `update_postimage`, `delete`) and the partition columns, written under `_change_data/<partition path>/`
 * with delta-rs's file names and listed by `cdc` actions (`dataChange: false`). `ChangeDataWriter` streams
 * them: each pushed batch goes through a bounded channel into one streaming writer, so no step holds more
 * than the batches in flight.
 */
import { type CdcAction, cdcForWrittenFile, parsePartitionValue, type Snapshot } from "@deltalite/delta-log";
import type { ObjectStore } from "@deltalite/object-store";
import { constantData, type WrittenFile } from "@deltalite/parquet-stream";
import { type Data, Field, makeData, RecordBatch, Schema, Struct, Utf8 } from "apache-arrow";
import { BatchChannel } from "./channel.js";
import { type DataFileWriterOptions, writePartitionFiles } from "./data-file-writer.js";

/** The column that says what a change-data row is. */
export const CHANGE_TYPE_COLUMN = "_change_type";

export type ChangeType = "insert" | "update_preimage" | "update_postimage" | "delete";

/** The folder change-data files live under. */
export const CHANGE_DATA_DIR = "_change_data";

/** A partition column of the table: its Arrow field and Delta type. */
export interface PartitionColumn {
  field: Field;
  deltaType: string;
}

/** The table's partition columns, in partition order. */
export function partitionColumnsOf(snapshot: Snapshot): PartitionColumn[] {
  return snapshot.partitionColumns.map((name) => {
    const field = snapshot.schema.fields.find((f) => f.name === name)!;
    const type = snapshot.deltaSchema.fields.find((f) => f.name === name)?.type;
    return { field, deltaType: typeof type === "string" ? type : "string" };
  });
}

/** The schema of a change-data file: the data-file columns, `_change_type`, then the partition columns. */
export function changeDataSchema(dataSchema: Schema, partitionFields: readonly Field[]): Schema {
  return new Schema([
    ...dataSchema.fields,
    new Field(CHANGE_TYPE_COLUMN, new Utf8(), true),
    ...partitionFields,
  ]);
}

export class ChangeDataWriter {
  readonly #channel = new BatchChannel<RecordBatch>(2);
  readonly #done: Promise<WrittenFile[]>;
  readonly #schema: Schema;
  readonly #partitionValues: { field: Field; value: unknown }[];
  readonly #values: Record<string, string | null>;

  /**
   * A writer of one partition's change data (`values`: its serialised partition values; `partitions` the
   * table's partition columns). `onFile` hears of every file as soon as it is complete (clean-up).
   */
  constructor(
    store: ObjectStore,
    dataSchema: Schema,
    partitions: readonly PartitionColumn[],
    values: Record<string, string | null>,
    options: DataFileWriterOptions & { onFile?: ((file: WrittenFile) => void) | undefined },
  ) {
    this.#schema = changeDataSchema(
      dataSchema,
      partitions.map((p) => p.field),
    );
    this.#values = values;
    this.#partitionValues = partitions.map(({ field, deltaType }) => ({
      field,
      value: parsePartitionValue(values[field.name] ?? null, deltaType),
    }));
    const files = writePartitionFiles(store, this.#channel, this.#schema, values, {
      ...options,
      keyPrefix: CHANGE_DATA_DIR,
      dataChange: false,
    });
    this.#done = (async () => {
      const out: WrittenFile[] = [];
      for await (const { file } of files) {
        options.onFile?.(file);
        out.push(file);
      }
      return out;
    })();
    this.#done.catch(() => undefined); // surfaced by finish()
  }

  /** Adds `rows` (in the data-file schema) as changes of `type`; waits while the writer is behind. */
  async push(rows: RecordBatch, type: ChangeType): Promise<void> {
    if (rows.numRows === 0) return;
    const n = rows.numRows;
    const children = [
      ...(rows.data.children as Data[]),
      constantData({ name: CHANGE_TYPE_COLUMN, type: new Utf8(), value: type }, n),
      ...this.#partitionValues.map(({ field, value }) =>
        constantData({ name: field.name, type: field.type, value }, n),
      ),
    ];
    const batch = new RecordBatch(
      this.#schema,
      makeData({ type: new Struct(this.#schema.fields), length: n, nullCount: 0, children }),
    );
    await Promise.race([this.#channel.push(batch), this.#done]);
  }

  /** Closes the stream; the `cdc` actions of the files written (none when no row was pushed). */
  async finish(): Promise<CdcAction[]> {
    this.#channel.close();
    const files = await this.#done;
    return files.map((file) => cdcForWrittenFile(file, this.#values));
  }

  /** Stops the writer after a failure (its files are the caller's to discard). */
  async abort(error: unknown): Promise<void> {
    this.#channel.close(error);
    await this.#done.catch(() => undefined);
  }
}
