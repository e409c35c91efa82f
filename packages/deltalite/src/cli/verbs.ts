/** Every CLI verb, in the order `--help` lists them. */
import type { Verb } from "./framework.js";
import { changesVerb } from "./verbs-changes.js";
import { deleteVerb } from "./verbs-delete.js";
import { historyUpsertVerb, keyBucketsVerb } from "./verbs-history.js";
import { infoVerb } from "./verbs-info.js";
import { historyVerb, vacuumVerb } from "./verbs-log.js";
import { compactVerb, restoreVerb, zOrderVerb } from "./verbs-maintain.js";
import { setPropertiesVerb } from "./verbs-properties.js";
import { scanVerb } from "./verbs-scan.js";
import { upsertVerb } from "./verbs-upsert.js";
import { writeVerb } from "./verbs-write.js";

export const verbs: readonly Verb[] = [
  infoVerb,
  historyVerb,
  scanVerb,
  writeVerb,
  upsertVerb,
  deleteVerb,
  historyUpsertVerb,
  keyBucketsVerb,
  compactVerb,
  zOrderVerb,
  restoreVerb,
  vacuumVerb,
  changesVerb,
  setPropertiesVerb,
];
