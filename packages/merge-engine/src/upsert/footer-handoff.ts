/**
 * The footer handoff from the probe to the rewrite: a file the probe found a key in hands its parsed footer
 * over, and the rewrite opens it without a second footer GET. A file within the footer hint (its one GET
 * brought the whole file) is kept only with its whole bytes, and the rewrite reads it with no GET at all
 * (rewrite-passthrough.ts), with the small-file single GET on. Bounded per attempt (files, and bytes held at
 * once: encoded footers and small files' bytes); the bytes are not counted against the call's budgets while
 * held (the probe gave their admission back), the rewrite admits them again before it reads them.
 */
import type { LiveFileReadContext } from "@deltalite/data-files";
import type { FileView } from "@deltalite/delta-log";
import { DEFAULT_FOOTER_HINT_BYTES, type ParquetMetadata } from "@deltalite/parquet-stream";

/** Footers the rewrite may hold at once: the process default of files in flight. */
export const FOOTER_HANDOFF_MAX_FILES = 16;
/** Bytes the rewrite may hold at once: encoded footers (parsed ones take a few times more), small files' bytes. */
export const FOOTER_HANDOFF_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The hit files' footers passed from the probe to the rewrite of one attempt. Bounded: at most
 * `maxFiles` footers of at most `maxBytes` encoded bytes are held at once; an offer beyond that is refused
 * (the rewrite then reads that footer itself), and `take` frees the footer it hands out.
 */
/** What a probe handed over for one file: its footer, and a small file's whole bytes. */
export interface HandedFile {
  metadata: ParquetMetadata;
  whole: Uint8Array | undefined;
}

export class FooterHandoff {
  readonly #footers = new Map<string, HandedFile>();
  #bytes = 0;
  /** Footers refused because the handoff was full. */
  refused = 0;

  constructor(
    readonly maxFiles = FOOTER_HANDOFF_MAX_FILES,
    readonly maxBytes = FOOTER_HANDOFF_MAX_BYTES,
  ) {}

  /** Footers held now. */
  get size(): number {
    return this.#footers.size;
  }

  /**
   * Keeps `metadata` for the rewrite of `file` if the bounds allow; a file within the footer hint only with
   * its `whole` bytes (a footer alone saves it nothing: its one GET brings the footer anyway).
   */
  offer(file: FileView, metadata: ParquetMetadata, whole?: Uint8Array): void {
    const small = file.size <= DEFAULT_FOOTER_HINT_BYTES;
    if ((small && whole?.byteLength !== file.size) || this.#footers.has(file.path)) return;
    const kept = small ? whole : undefined;
    const bytes = heldBytes(metadata, kept);
    if (this.#footers.size >= this.maxFiles || this.#bytes + bytes > this.maxBytes) {
      this.refused++;
      return;
    }
    this.#footers.set(file.path, { metadata, whole: kept });
    this.#bytes += bytes;
  }

  /** What was offered for `file`, handed out once (and no longer held). */
  take(file: FileView): HandedFile | undefined {
    const handed = this.#footers.get(file.path);
    if (handed === undefined) return undefined;
    this.#footers.delete(file.path);
    this.#bytes -= heldBytes(handed.metadata, handed.whole);
    return handed;
  }
}

function heldBytes(metadata: ParquetMetadata, whole: Uint8Array | undefined): number {
  return (Number(metadata.metadata_length) || 0) + (whole?.byteLength ?? 0);
}

/**
 * One handoff per attempt: the probe and the rewrite of an attempt share its read context, so the handoff
 * lives (and is collected) with that context.
 */
const handoffs = new WeakMap<LiveFileReadContext, FooterHandoff>();

/** The footer handoff of the attempt whose read context is `context`. */
export function footerHandoff(context: LiveFileReadContext): FooterHandoff {
  let handoff = handoffs.get(context);
  if (!handoff) {
    handoff = new FooterHandoff();
    handoffs.set(context, handoff);
  }
  return handoff;
}
