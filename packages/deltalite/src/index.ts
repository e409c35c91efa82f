/**
 * deltalite: the umbrella package applications import. It grows with the product; today it exposes the
 * error hierarchy and the storage layer (`openStore` and the ObjectStore implementations). The table API
 * (`DeltaLiteTable`) arrives with the delta-log, parquet-stream and merge-engine packages.
 */
export * from "@deltalite/errors";
export {
  CountingStore,
  FaultyStore,
  InMemoryStore,
  LocalFileStore,
  listAll,
  type ObjectMeta,
  type ObjectStore,
  type OpenStoreOptions,
  openStore,
  type PutMode,
  parseLocation,
  S3Store,
  type StorageOptions,
} from "@deltalite/object-store";
