/**
 * The footer handoff from the probe to the rewrite: a file the probe found a key in hands its parsed footer
 * over, and the rewrite opens it without a second footer GET. Bounded per attempt (files and encoded bytes
 * held at once); a file within the footer hint is never kept (its one GET brings the footer anyway).
 */
import type { LiveFileReadContext } from "@deltalite/data-files";
import type { FileView } from "@deltalite/delta-log";
import { DEFAULT_FOOTER_HINT_BYTES, type ParquetMetadata } from "@deltalite/parquet-stream";

/** Footers the rewrite may hold at once: the process default of files in flight. */
export const FOOTER_HANDOFF_MAX_FILES = 16;
/** Encoded footer bytes the rewrite may hold at once (parsed footers take a few times more). */
export const FOOTER_HANDOFF_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The hit files' footers passed from the probe to the rewrite of one attempt. Bounded: at most
 * `maxFiles` footers of at most `maxBytes` encoded bytes are held at once; an offer beyond that is refused
 * (the rewrite then reads that footer itself), and `take` frees the footer it hands out.
 */
export class FooterHandoff {
  readonly #footers = new Map<string, ParquetMetadata>();
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

  /** Keeps `metadata` for the rewrite of `file` if the bounds allow (small files are never kept). */
  offer(file: FileView, metadata: ParquetMetadata): void {
    // A file within the footer hint is not kept: its one GET brings the footer (and the chunks) anyway.
    if (file.size <= DEFAULT_FOOTER_HINT_BYTES || this.#footers.has(file.path)) return;
    const bytes = Number(metadata.metadata_length) || 0;
    if (this.#footers.size >= this.maxFiles || this.#bytes + bytes > this.maxBytes) {
      this.refused++;
      return;
    }
    this.#footers.set(file.path, metadata);
    this.#bytes += bytes;
  }

  /** The footer offered for `file`, handed out once (and no longer held). */
  take(file: FileView): ParquetMetadata | undefined {
    const metadata = this.#footers.get(file.path);
    if (metadata === undefined) return undefined;
    this.#footers.delete(file.path);
    this.#bytes -= Number(metadata.metadata_length) || 0;
    return metadata;
  }
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
