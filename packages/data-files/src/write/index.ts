/** Writing a table's data files: alignment to the table schema, partition split, data files, WRITE commits. */
export {
  type AlignWording,
  alignBatch,
  alignToTable,
  columnsToRelax,
  planAlignment,
  type SchemaPlan,
  withNullable,
} from "./align.js";
export { ArrowAdopter } from "./arrow-adopt.js";
export { isArrowSchema } from "./arrow-shape.js";
export {
  CHANGE_DATA_DIR,
  CHANGE_TYPE_COLUMN,
  ChangeDataWriter,
  type ChangeType,
  changeDataSchema,
  type PartitionColumn,
  partitionColumnsOf,
} from "./change-data.js";
export { type DataFileWriterOptions, type WrittenDataFile, writePartitionFiles } from "./data-file-writer.js";
export { type BatchSource, type PeekedStream, peekBatches } from "./input.js";
export {
  dataFileSchema,
  type PartitionGroup,
  type PartitionRows,
  partitionRows,
  splitByPartition,
} from "./partition-split.js";
export {
  checkWriteMode,
  WRITE_MODES,
  type WriteMode,
  writeMetrics,
  writeParameters,
} from "./write-commit.js";
export { type WriteFilesOptions, type WrittenAdds, writeDataFiles } from "./write-files.js";
export {
  type CommittedWrite,
  type IgnoredWrite,
  type SkippedWrite,
  type WriteOptions,
  type WriteResult,
  writeExistingTable,
  writeNewTable,
} from "./write-table.js";
