/** Table scans: projection, filters, partition and stats pruning, row filtering (see table-scan.ts). */
export {
  type Comparable,
  compareStrings,
  resolveFilter,
  SCAN_FILTER_OPS,
  type ScanFilterCondition,
  type ScanFilterOp,
  type ScanFilterValue,
} from "./filter.js";
export { partitionsMatch, statsMatch, statsMayMatch, statsProveAll, statsProveAllMatch } from "./prune.js";
export {
  type ScanMetrics,
  type ScanOptions,
  type ScanPlan,
  type SnapshotSource,
  scanTable,
  TableScan,
} from "./table-scan.js";
