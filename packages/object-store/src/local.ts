/**
 * Local file-system ObjectStore rooted at one directory. Writes go to a temp file in the destination's
 * folder first: `create` then hard-links it to the key (EEXIST → `already_exists`, so two writers — threads
 * or processes — can never both win), `overwrite` renames it over the key. Readers never see a partial file.
 * POSIX has no atomic compare-and-swap on contents, so `{ ifMatch }` answers `not_implemented`.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, read, readSync, type Stats, statSync } from "node:fs";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { DeltaLiteError, isDeltaLiteError } from "@deltalite/errors";
import { asAsync, releaseBytes } from "./collect.js";
import { alreadyExists, joinDisplay, notFound, throwIfAborted } from "./errors.js";
import { clampRange, compareUtf8, validateKey, validatePrefix } from "./keys.js";
import type {
  GetOptions,
  ListOptions,
  LocalFileTarget,
  MultipartPutOptions,
  ObjectMeta,
  ObjectStore,
  PutMode,
  PutOptions,
  PutResult,
  SignalOptions,
  StoreCapabilities,
  TempSweepOptions,
} from "./types.js";

/**
 * A read of at most this many bytes runs synchronously (open, fstat, read and close are calls on a local
 * file, mostly from the page cache). Through `fs/promises` each read is four thread-pool round trips and a
 * FileHandle: 480 ranged reads (an upsert probe of 240 files) took 42–57 ms of CPU that way, 21–30 ms
 * synchronously (medians of 7 rounds, two runs each, tools/bench/object-store/local-reads.mjs). Larger
 * reads stay asynchronous, so the event loop is never held for long. A HEAD, a listing's sizes and a put's
 * etag stat synchronously for the same reason: through `fs/promises` each stat waited on the thread pool
 * behind the upsert's fsyncs (a recent 1M upsert's ~35 stats: CPU 770 → 740 ms, 8 pairs; merge-engine
 * BENCHMARKS.md, session 27).
 */
export const SYNC_READ_MAX_BYTES = 1 << 20;

/** Reads `out.length` bytes from `position` (fewer at the end of the file); returns how many. */
function readAllSync(fd: number, out: Uint8Array, position: number): number {
  let done = 0;
  while (done < out.length) {
    const bytesRead = readSync(fd, out, done, out.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** `readAllSync` on the thread pool. */
async function readAll(fd: number, out: Uint8Array, position: number): Promise<number> {
  let done = 0;
  while (done < out.length) {
    const bytesRead = await new Promise<number>((resolve, reject) =>
      read(fd, out, done, out.length - done, position + done, (error, n) =>
        error ? reject(error) : resolve(n),
      ),
    );
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done;
}

/** Temp files carry this prefix; listings skip them. */
export const LOCAL_TEMP_PREFIX = ".deltalite-tmp-";

export class LocalFileStore implements ObjectStore {
  readonly root: string;
  readonly capabilities: StoreCapabilities = { ifMatch: false };
  readonly #dir: string;

  /** `directory` is resolved to an absolute path; it need not exist yet. */
  constructor(directory: string) {
    this.#dir = path.resolve(directory);
    this.root = `file://${this.#dir}`;
  }

  #path(key: string): string {
    validateKey(key);
    return path.join(this.#dir, ...key.split("/"));
  }

  localPath(key: string): string {
    return this.#path(key);
  }

  async get(key: string, options: GetOptions = {}): Promise<Uint8Array> {
    const file = this.#path(key);
    throwIfAborted(options.signal, this.root, key);
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (error) {
      throw this.#mapError(error, key);
    }
    try {
      const size = fstatSync(fd).size;
      const { start, end } = options.range ? clampRange(options.range, size, key) : { start: 0, end: size };
      const out = new Uint8Array(end - start);
      const done =
        out.length <= SYNC_READ_MAX_BYTES ? readAllSync(fd, out, start) : await readAll(fd, out, start);
      if (done !== out.length) {
        throw new DeltaLiteError("generic", `short read of ${joinDisplay(this.root, key)}`, {
          retryable: true,
        });
      }
      return out;
    } catch (error) {
      throw this.#mapError(error, key);
    } finally {
      closeSync(fd);
    }
  }

  async head(key: string, options: SignalOptions = {}): Promise<ObjectMeta> {
    const file = this.#path(key);
    throwIfAborted(options.signal, this.root, key);
    try {
      const stats = statSync(file); // synchronous, as a small read is (SYNC_READ_MAX_BYTES)
      if (!stats.isFile()) throw notFound(this.root, key);
      return metaOf(key, stats);
    } catch (error) {
      throw this.#mapError(error, key);
    }
  }

  async put(key: string, data: Uint8Array, options: PutOptions = {}): Promise<PutResult> {
    return this.putMultipart(key, [data], options);
  }

  async putMultipart(
    key: string,
    chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    options: MultipartPutOptions = {},
  ): Promise<PutResult> {
    this.#path(key); // an invalid key is refused first, as before
    this.#putMode(key, options); // and an unsupported mode before anything is written
    const target = await this.localTarget(key, options);
    try {
      const handle = await fs.open(target.path, constants.O_WRONLY);
      try {
        for await (const chunk of asAsync(chunks)) {
          throwIfAborted(options.signal, this.root, key);
          await handle.write(chunk);
          if (options.handOver) releaseBytes(chunk);
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      await target.discard();
      throw this.#mapError(error, key);
    }
    return target.commit(options);
  }

  /**
   * A new, empty temp file in `key`'s folder (created if need be), created here and only here (so a writer
   * that opens it after `discard` finds nothing, and never leaves a file behind), for a writer in this
   * process to write in place; `commit` links it to the key (`create`) or renames it over it (`overwrite`),
   * as `put` does with the temp file it writes.
   */
  async localTarget(key: string, options: SignalOptions = {}): Promise<LocalFileTarget> {
    const file = this.#path(key);
    throwIfAborted(options.signal, this.root, key);
    const dir = path.dirname(file);
    try {
      await fs.mkdir(dir, { recursive: true });
    } catch (error) {
      throw this.#mapError(error, key);
    }
    const temp = path.join(dir, `${LOCAL_TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    try {
      await (await fs.open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644)).close();
    } catch (error) {
      throw this.#mapError(error, key);
    }
    const discard = () => fs.rm(temp, { force: true }).catch(() => undefined);
    return {
      path: temp,
      commit: (put: PutOptions = {}) => this.#adopt(key, file, temp, put),
      discard,
    };
  }

  /** The put's mode: `create` or `overwrite` (POSIX has no compare-and-swap for `ifMatch`). */
  #putMode(key: string, options: PutOptions): "create" | "overwrite" {
    const mode: PutMode = options.mode ?? "overwrite";
    if (mode === "create" || mode === "overwrite") return mode;
    throw new DeltaLiteError(
      "not_implemented",
      `conditional overwrite (ifMatch) is not supported by the local file store: ${joinDisplay(this.root, key)}`,
    );
  }

  /** Puts the complete temp file `temp` in place at `key` (`file`); the temp file is gone after. */
  async #adopt(key: string, file: string, temp: string, options: PutOptions): Promise<PutResult> {
    try {
      const mode = this.#putMode(key, options);
      throwIfAborted(options.signal, this.root, key);
      if (mode === "create") {
        try {
          await fs.link(temp, file);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST") throw alreadyExists(this.root, key);
          throw error;
        }
      } else {
        await fs.rename(temp, file);
      }
    } catch (error) {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      throw this.#mapError(error, key);
    }
    // The object is in place: nothing after this point may report the put as failed (a caller would
    // take a stored commit for a lost one). A temp file left behind is swept by `removeStaleTempFiles`.
    await fs.rm(temp, { force: true }).catch(() => undefined);
    return { etag: etagOfPath(file) };
  }

  /**
   * Deletes temp files (`.deltalite-tmp-*`) under `prefix` last modified before `olderThanMs` (epoch ms):
   * leftovers of writers that crashed between writing a temp file and linking it. Returns the keys removed.
   * Temp files of writes in progress are younger than any sensible cut-off.
   */
  async removeStaleTempFiles(
    prefix: string,
    olderThanMs: number,
    options: TempSweepOptions = {},
  ): Promise<string[]> {
    validatePrefix(prefix);
    const slash = prefix.lastIndexOf("/");
    const temps: ObjectMeta[] = [];
    await this.#walk(
      slash < 0 ? "" : prefix.slice(0, slash + 1),
      prefix,
      undefined,
      temps,
      options.signal,
      "temp",
    );
    const stale = temps.filter((meta) => meta.lastModified < olderThanMs).map((meta) => meta.key);
    if (!options.dryRun) {
      for (const key of stale) await fs.rm(path.join(this.#dir, ...key.split("/")), { force: true });
    }
    return stale.sort(compareUtf8);
  }

  async *list(prefix: string, options: ListOptions = {}): AsyncIterable<ObjectMeta> {
    validatePrefix(prefix);
    const slash = prefix.lastIndexOf("/");
    const baseKey = slash < 0 ? "" : prefix.slice(0, slash + 1);
    const found: ObjectMeta[] = [];
    await this.#walk(baseKey, prefix, options.startAfter, found, options.signal);
    found.sort((a, b) => compareUtf8(a.key, b.key));
    for (const meta of found) yield meta;
  }

  async #walk(
    dirKey: string,
    prefix: string,
    startAfter: string | undefined,
    out: ObjectMeta[],
    signal: AbortSignal | undefined,
    files: "objects" | "temp" = "objects",
  ): Promise<void> {
    throwIfAborted(signal, this.root, prefix);
    let entries: import("node:fs").Dirent[];
    try {
      entries = await fs.readdir(path.join(this.#dir, ...dirKey.split("/").filter(Boolean)), {
        withFileTypes: true,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return;
      throw this.#mapError(error, dirKey);
    }
    for (const entry of entries) {
      const key = dirKey + entry.name;
      if (entry.isDirectory()) {
        const asDir = `${key}/`;
        if (asDir.startsWith(prefix) || prefix.startsWith(asDir)) {
          await this.#walk(asDir, prefix, startAfter, out, signal, files);
        }
      } else if (entry.name.startsWith(LOCAL_TEMP_PREFIX) !== (files === "temp")) {
        // listings never show temp files; the stale-temp sweep sees only them
      } else if (entry.isFile() && key.startsWith(prefix)) {
        if (startAfter !== undefined && compareUtf8(key, startAfter) <= 0) continue;
        try {
          out.push(metaOf(key, statSync(path.join(this.#dir, ...key.split("/")))));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw this.#mapError(error, key);
        }
      }
    }
  }

  async delete(key: string, options: SignalOptions = {}): Promise<void> {
    const file = this.#path(key);
    throwIfAborted(options.signal, this.root, key);
    try {
      await fs.unlink(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
      throw this.#mapError(error, key);
    }
  }

  #mapError(error: unknown, key: string): unknown {
    if (isDeltaLiteError(error)) return error;
    const code = (error as NodeJS.ErrnoException).code;
    const where = joinDisplay(this.root, key);
    switch (code) {
      case "ENOENT":
      case "EISDIR":
      case "ENOTDIR":
        return notFound(this.root, key, error);
      case "EACCES":
      case "EPERM":
        return new DeltaLiteError("permission_denied", `permission denied: ${where}`, { cause: error });
      case "EMFILE":
      case "ENFILE":
      case "EAGAIN":
      case "EBUSY":
        return new DeltaLiteError("generic", `transient file-system error ${code}: ${where}`, {
          cause: error,
          retryable: true,
        });
      default:
        return new DeltaLiteError("generic", `file-system error ${code ?? "unknown"}: ${where}`, {
          cause: error,
        });
    }
  }
}

/** The etag of the file at `file` now, or undefined when it cannot be read. */
function etagOfPath(file: string): string | undefined {
  try {
    return etagOf(statSync(file));
  } catch {
    return undefined;
  }
}

function etagOf(stats: Stats): string {
  return `"${stats.ino.toString(16)}-${Math.round(stats.mtimeMs * 1000).toString(16)}-${stats.size.toString(16)}"`;
}

function metaOf(key: string, stats: Stats): ObjectMeta {
  return { key, size: stats.size, etag: etagOf(stats), lastModified: Math.floor(stats.mtimeMs) };
}
