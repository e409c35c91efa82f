/** Partition values and data-file paths, exactly as delta-rs writes them. */

export { partitionScalarAt, partitionScalarReader } from "./arrow-values.js";
export {
  dataFileName,
  encodeActionPath,
  encodePartitionDirectoryValue,
  hivePartitionPath,
  NULL_PARTITION_DIRECTORY,
} from "./paths.js";
export {
  formatRustFloat,
  formatTimestampMicros,
  type PartitionScalar,
  type PrimitiveTypeName,
  parsePartitionValue,
  serializePartitionValue,
} from "./values.js";
