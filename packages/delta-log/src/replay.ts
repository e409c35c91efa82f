/**
 * Log replay: folds actions, oldest first, into table state — the latest protocol and metaData, live
 * files keyed by decoded path plus deletion-vector id, tombstones, the latest txn version per appId and
 * live domain metadata. A checkpoint is applied like a commit, so checkpoint + tail equals full replay.
 */
import type {
  AddAction,
  DomainMetadataAction,
  MetadataAction,
  ParsedAction,
  ProtocolAction,
  RemoveAction,
  TxnAction,
} from "./actions.js";
import { deletionVectorId } from "./actions.js";
import { decodeLogPath } from "./table-paths.js";

/** A live file: the add action plus its decoded store key and the version that added it. */
export interface LiveFile {
  /** Store key relative to the table root (add.path decoded once). */
  key: string;
  add: AddAction;
  /** The commit that added the file, or the checkpoint's version for a file a checkpoint lists. */
  version: number;
}

export interface Tombstone {
  key: string;
  remove: RemoveAction;
}

/** The identity of a logical file: decoded path plus deletion-vector id. */
export function fileId(key: string, dv: AddAction["deletionVector"]): string {
  const dvId = deletionVectorId(dv);
  return dvId === undefined ? key : `${key}\u0000${dvId}`;
}

export class ReplayState {
  protocol: ProtocolAction | undefined;
  metadata: MetadataAction | undefined;
  readonly files: Map<string, LiveFile>;
  readonly tombstones: Map<string, Tombstone>;
  readonly txns: Map<string, TxnAction>;
  readonly domains: Map<string, DomainMetadataAction>;

  constructor(table: string, from?: ReplayState) {
    this.table = table;
    this.protocol = from?.protocol;
    this.metadata = from?.metadata;
    this.files = new Map(from?.files);
    this.tombstones = new Map(from?.tombstones);
    this.txns = new Map(from?.txns);
    this.domains = new Map(from?.domains);
  }

  readonly table: string;

  /** An independent copy (maps are copied; actions are shared and treated as immutable). */
  clone(): ReplayState {
    return new ReplayState(this.table, this);
  }

  /** Applies one commit's (or checkpoint's) actions; `version` is that commit's (or checkpoint's). */
  apply(actions: readonly ParsedAction[], version: number): void {
    for (const action of actions) {
      if ("add" in action) {
        const key = decodeLogPath(action.add.path, this.table);
        const id = fileId(key, action.add.deletionVector);
        this.files.set(id, { key, add: action.add, version });
        this.tombstones.delete(id);
      } else if ("remove" in action) {
        const key = decodeLogPath(action.remove.path, this.table);
        const id = fileId(key, action.remove.deletionVector);
        this.files.delete(id);
        this.tombstones.set(id, { key, remove: action.remove });
      } else if ("metaData" in action) {
        this.metadata = action.metaData;
      } else if ("protocol" in action) {
        this.protocol = action.protocol;
      } else if ("txn" in action) {
        this.txns.set(action.txn.appId, action.txn);
      } else if ("domainMetadata" in action) {
        if (action.domainMetadata.removed) this.domains.delete(action.domainMetadata.domain);
        else this.domains.set(action.domainMetadata.domain, action.domainMetadata);
      }
    }
  }
}
