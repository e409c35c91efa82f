//! Per-row hashes of one byte-array column, decoded from the ranges of its file a JavaScript reader fetched
//! (the footer and the column's chunk: a sparse view of the file) on the libuv thread pool. Row i's hash is
//! XXH64 of its value's bytes under the caller's seed, and of no bytes for a NULL (flagged apart). The hashes
//! cross back to JavaScript, where an upsert's probe asks whether any of them is a source key's; asked for
//! them, the values come back too (their offsets from 0 and their bytes, one copy each), so a probe that finds
//! a source key's hash matches the keys exactly without decoding the column again.
//! A local file's column is hashed from its path (`fileColumnLayout`, then `hashFileColumnValues` per row
//! group) on the addon's CPU threads (`cpu_pool.rs`): the footer and the chunk are read there too, so the probe's JavaScript does no file reads and
//! no footer parsing of its own for a file without a hit.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use bytes::{Buf, Bytes};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use parquet::basic::{ConvertedType, LogicalType, Type as PhysicalType};
use parquet::errors::ParquetError;
use parquet::file::reader::{ChunkReader, Length};
use xxhash_rust::xxh64::xxh64;

use crate::batch::failure;
use crate::source_probe::SourceProbe;

/// Some byte ranges of a file of `size` bytes; reading outside them is an error, never a guess.
struct SparseFile {
    size: u64,
    /// (offset in the file, bytes), sorted by offset.
    parts: Vec<(u64, Bytes)>,
}

impl SparseFile {
    fn slice(&self, start: u64, length: Option<usize>) -> parquet::errors::Result<Bytes> {
        let at = self.parts.partition_point(|(offset, _)| *offset <= start);
        if at > 0 {
            let (offset, bytes) = &self.parts[at - 1];
            let from = (start - offset) as usize;
            let to = length.map_or(bytes.len(), |n| from.saturating_add(n));
            if from <= bytes.len() && to <= bytes.len() {
                return Ok(bytes.slice(from..to));
            }
        }
        Err(ParquetError::General(format!(
            "bytes at offset {start} (length {length:?}) were not among the fetched ranges of the file"
        )))
    }
}

impl Length for SparseFile {
    fn len(&self) -> u64 {
        self.size
    }
}

impl ChunkReader for SparseFile {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        Ok(self.slice(start, None)?.reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.slice(start, Some(length))
    }
}

/// Row i's hash as 8 little-endian bytes at 8i (the (lo, hi) words JavaScript reads), and NULL flags.
#[napi(object)]
pub struct ValueHashes {
    pub rows: u32,
    pub hashes: Buffer,
    /// 1 for a NULL value; absent when the column holds none.
    pub nulls: Option<Buffer>,
    /// Asked for values: row i's value is `values[offsets[i]..offsets[i + 1]]` (offsets: `rows + 1` i32 LE,
    /// the first 0). Absent when not asked for, or when the column's offsets do not fit in 32 bits.
    pub offsets: Option<Buffer>,
    pub values: Option<Buffer>,
    /// Asked with the source's key hashes (`probe`): whether a non-NULL row has one of them (source_probe.rs).
    pub may_hit: Option<bool>,
    /// Asked with `probe` and for values: the rows whose non-NULL hash is one of the source's, ascending (u32
    /// LE; every row that may hold a source key, so the caller matches these exactly and no other).
    pub hit_rows: Option<Buffer>,
}

/// A decoded column's hashes, NULL flags and, when asked for, its (offsets, values).
type Hashed = (u32, Vec<u8>, Option<Vec<u8>>, Option<(Vec<u8>, Vec<u8>)>);

/// The source probe's answer: whether a row may hit, and with values the rows that may.
type ProbeAnswer = (bool, Option<Vec<u32>>);

/// Hashes, and the answer of the source probe when one was given.
type Probed = (Hashed, Option<ProbeAnswer>);

/// `hashed` with the answer of `probe` over it: with values (a row group the caller will match), every row that
/// may hit; without, only whether one may.
fn probed(hashed: Hashed, probe: Option<&SourceProbe>) -> Probed {
    let answer = probe.map(|p| {
        let (hashes, nulls) = (&hashed.1, hashed.2.as_deref());
        if hashed.3.is_some() {
            let rows = p.hit_rows(hashes, nulls);
            (!rows.is_empty(), Some(rows))
        } else {
            (p.may_hit(hashes, nulls), None)
        }
    });
    (hashed, answer)
}

/// The source probe of the caller's hash bytes (`probe`); an error when they are not whole hashes.
fn source_probe(probe: Option<Uint8Array>) -> Result<Option<SourceProbe>> {
    probe
        .map(|bytes| {
            SourceProbe::from_le_bytes(&bytes)
                .ok_or_else(|| Error::from_reason("probe: the source hashes are not 8 bytes each"))
        })
        .transpose()
}

/// One call's work, run on the libuv thread pool. It holds references to the caller's buffers and reads them
/// in place; the caller must neither change nor transfer them until the call settles.
pub struct HashValues {
    size: u64,
    offsets: Vec<u64>,
    parts: Vec<Uint8Array>,
    row_group: u32,
    leaf: u32,
    seed: u64,
    with_values: bool,
    probe: Option<SourceProbe>,
}

impl HashValues {
    /// The parts as a sparse file. Its `Bytes` borrow `self.parts` and must not outlive this task: every
    /// value made from them (the file, the decoded array) is dropped before `compute` returns.
    fn sparse_file(&self) -> SparseFile {
        let mut parts: Vec<(u64, Bytes)> = self
            .offsets
            .iter()
            .zip(&self.parts)
            .map(|(&offset, part)| {
                let bytes: &[u8] = part;
                (offset, Bytes::from_static(unsafe { std::mem::transmute::<&[u8], &'static [u8]>(bytes) }))
            })
            .collect();
        parts.sort_by_key(|(offset, _)| *offset);
        SparseFile { size: self.size, parts }
    }
}

impl Task for HashValues {
    type Output = Probed;
    type JsValue = ValueHashes;

    fn compute(&mut self) -> Result<Self::Output> {
        let (row_group, leaf) = (self.row_group, self.leaf);
        let hashed =
            hashed_leaf(|| Ok(self.sparse_file()), |file| decode_leaf(file, row_group, leaf), self.seed, self.with_values)?;
        Ok(probed(hashed, self.probe.as_ref()))
    }

    fn resolve(&mut self, _env: Env, probed: Self::Output) -> Result<Self::JsValue> {
        Ok(value_hashes(probed))
    }
}

/// The column `decode` takes from the file `open` gives, hashed (a panic of parquet-rs is an error).
fn hashed_leaf<T: ChunkReader + 'static>(
    open: impl FnOnce() -> Result<T>,
    decode: impl FnOnce(T) -> Result<ArrayRef>,
    seed: u64,
    with_values: bool,
) -> Result<Hashed> {
    let run = std::panic::AssertUnwindSafe(|| {
        let column = decode(open()?)?;
        let (rows, hashes, nulls) = hash_values(&column, seed)?;
        let values = if with_values { values_of(&column) } else { None };
        Ok((rows, hashes, nulls, values))
    });
    std::panic::catch_unwind(run)
        .unwrap_or_else(|_| Err(Error::from_reason("parquet-rs panicked while decoding a column chunk")))
}

fn value_hashes(((rows, hashes, nulls, values), answer): Probed) -> ValueHashes {
    let (offsets, values) = values.map_or((None, None), |(o, v)| (Some(o.into()), Some(v.into())));
    let (may_hit, hit_rows) = answer.map_or((None, None), |(may, rows)| (Some(may), rows));
    let hit_rows = hit_rows.map(|rows| rows.iter().flat_map(|row| row.to_le_bytes()).collect::<Vec<u8>>().into());
    ValueHashes { rows, hashes: hashes.into(), nulls: nulls.map(Into::into), offsets, values, may_hit, hit_rows }
}

/// The hashes of leaf column `leaf` (a Parquet leaf index; a top-level byte-array column) in row group
/// `row_group` of a file of `size` bytes of which only `parts[i]` at `offsets[i]` are given: its footer with
/// the 8-byte trailer, and the column's chunk. XXH64 under the seed `seed_hi << 32 | seed_lo`; with
/// `with_values`, the values as well; given the source's key hashes (`probe`), whether a row has one of them.
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn hash_column_values(
    size: i64,
    offsets: Vec<i64>,
    parts: Vec<Uint8Array>,
    row_group: u32,
    leaf: u32,
    seed_lo: u32,
    seed_hi: u32,
    with_values: Option<bool>,
    probe: Option<Uint8Array>,
) -> Result<AsyncTask<HashValues>> {
    if offsets.len() != parts.len() || size < 0 || offsets.iter().any(|&o| o < 0) {
        return Err(Error::from_reason("hashColumnValues: offsets and parts do not match"));
    }
    let offsets = offsets.into_iter().map(|o| o as u64).collect();
    let seed = (u64::from(seed_hi) << 32) | u64::from(seed_lo);
    let with_values = with_values.unwrap_or(false);
    let probe = source_probe(probe)?;
    // On libuv's pool, not the addon's CPU threads: the task reads the caller's buffers in place, and an
    // `AsyncTask` keeps them referenced until the JavaScript thread settles it, whatever happens to the caller.
    Ok(AsyncTask::new(HashValues { size: size as u64, offsets, parts, row_group, leaf, seed, with_values, probe }))
}

/// A file's footer as the hashes read it: the Parquet types alone (a footer's `ARROW:schema` could ask for
/// dictionary or view arrays, and only the values' bytes are wanted here).
fn hashing_metadata<T: ChunkReader>(file: &T) -> Result<ArrowReaderMetadata> {
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    ArrowReaderMetadata::load(file, options).map_err(failure)
}

fn decode_leaf<T: ChunkReader + 'static>(file: T, row_group: u32, leaf: u32) -> Result<ArrayRef> {
    let metadata = hashing_metadata(&file)?;
    decode_leaf_with(file, metadata, row_group, leaf)
}

/// `decode_leaf` of a file whose footer is already parsed (`metadata`, from `hashing_metadata`).
fn decode_leaf_with<T: ChunkReader + 'static>(
    file: T,
    metadata: ArrowReaderMetadata,
    row_group: u32,
    leaf: u32,
) -> Result<ArrayRef> {
    let parquet = metadata.metadata();
    if row_group as usize >= parquet.num_row_groups() {
        return Err(Error::from_reason(format!(
            "row group {row_group} asked of a file with {}",
            parquet.num_row_groups()
        )));
    }
    let schema = parquet.file_metadata().schema_descr();
    if leaf as usize >= schema.num_columns() {
        return Err(Error::from_reason(format!("leaf column {leaf} asked of a file with {}", schema.num_columns())));
    }
    let mask = ProjectionMask::leaves(schema, [leaf as usize]);
    let rows = parquet.row_group(row_group as usize).num_rows().max(1) as usize;
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata)
        .with_projection(mask)
        .with_row_groups(vec![row_group as usize])
        .with_batch_size(rows)
        .build()
        .map_err(failure)?;
    let mut columns = Vec::new();
    for batch in reader {
        let batch = batch.map_err(failure)?;
        if batch.num_columns() != 1 {
            return Err(Error::from_reason("the leaf is not a top-level column"));
        }
        columns.push(batch.column(0).clone());
    }
    match columns.len() {
        0 => Err(Error::from_reason("the row group has no rows")),
        1 => Ok(columns.remove(0)),
        _ => Err(Error::from_reason("the row group was decoded in more than one batch")),
    }
}

/// Each value's bytes, hashed; NULLs hash no bytes and are flagged.
fn hash_values(column: &ArrayRef, seed: u64) -> Result<(u32, Vec<u8>, Option<Vec<u8>>)> {
    let rows = column.len();
    let mut hashes = Vec::with_capacity(8 * rows);
    let mut push = |value: Option<&[u8]>| hashes.extend_from_slice(&xxh64(value.unwrap_or(&[]), seed).to_le_bytes());
    match column.data_type() {
        DataType::Utf8 => column.as_string::<i32>().iter().for_each(|v| push(v.map(str::as_bytes))),
        DataType::LargeUtf8 => column.as_string::<i64>().iter().for_each(|v| push(v.map(str::as_bytes))),
        DataType::Binary => column.as_binary::<i32>().iter().for_each(&mut push),
        DataType::LargeBinary => column.as_binary::<i64>().iter().for_each(&mut push),
        other => return Err(Error::from_reason(format!("values of type {other} are not byte arrays"))),
    }
    let nulls = column.nulls().filter(|n| n.null_count() > 0).map(|n| n.iter().map(|valid| u8::from(!valid)).collect());
    Ok((rows as u32, hashes, nulls))
}

/// The values of a byte-array column as (offsets from 0 as i32 LE, bytes); None when they do not fit in i32
/// offsets (a large array past 2 GiB: the caller reads the column itself).
fn values_of(column: &ArrayRef) -> Option<(Vec<u8>, Vec<u8>)> {
    fn pack<O: Copy + Into<i64>>(offsets: &[O], values: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
        let first: i64 = (*offsets.first()?).into();
        let last: i64 = (*offsets.last()?).into();
        if last - first > i64::from(i32::MAX) {
            return None;
        }
        let mut packed = Vec::with_capacity(4 * offsets.len());
        for &o in offsets {
            packed.extend_from_slice(&((o.into() - first) as i32).to_le_bytes());
        }
        Some((packed, values[first as usize..last as usize].to_vec()))
    }
    match column.data_type() {
        DataType::Utf8 => {
            let a = column.as_string::<i32>();
            pack(a.value_offsets(), a.value_data())
        }
        DataType::LargeUtf8 => {
            let a = column.as_string::<i64>();
            pack(a.value_offsets(), a.value_data())
        }
        DataType::Binary => {
            let a = column.as_binary::<i32>();
            pack(a.value_offsets(), a.value_data())
        }
        DataType::LargeBinary => {
            let a = column.as_binary::<i64>();
            pack(a.value_offsets(), a.value_data())
        }
        _ => None,
    }
}

/// Where a local file keeps one top-level byte-array column, read from its footer (`fileColumnLayout`).
#[napi(object)]
pub struct FileColumnLayout {
    /// False when the file has no top-level column of that name (every key there is NULL).
    pub present: bool,
    /// The column's Parquet leaf index (what `hashFileColumnValues` takes).
    pub leaf: u32,
    /// True for bytes without a string annotation, false for UTF-8 strings.
    pub binary: bool,
    /// Per row group: its rows, the column chunk's compressed bytes and its uncompressed bytes.
    pub rows: Vec<f64>,
    pub chunk_bytes: Vec<f64>,
    pub uncompressed_bytes: Vec<f64>,
    /// Asked for with a seed: the first row group's hashes (no values), read with the same footer; absent
    /// when not asked for, when the column is absent or has no row group, or when that decode failed (the
    /// caller then asks `hashFileColumnValues`, which says why).
    pub first: Option<ValueHashes>,
}

/// The layout of column `column` of the local file at `path` (`size` bytes), read on the pool, and with
/// `first_seed` the first row group's hashes under it.
pub struct ColumnLayout {
    path: String,
    size: f64,
    column: String,
    first_seed: Option<u64>,
    probe: Option<SourceProbe>,
}

impl Task for ColumnLayout {
    type Output = (FileColumnLayout, Option<Probed>);
    type JsValue = FileColumnLayout;

    fn compute(&mut self) -> Result<Self::Output> {
        let file = crate::local_file::open_local_file(&self.path, self.size)?;
        let metadata = hashing_metadata(&file)?;
        let layout = column_layout(metadata.metadata(), &self.column)?;
        let first = match self.first_seed {
            Some(seed) if layout.present && !layout.rows.is_empty() => {
                let leaf = layout.leaf;
                let hashed = hashed_leaf(|| Ok(file), |file| decode_leaf_with(file, metadata, 0, leaf), seed, false);
                hashed.ok().map(|hashed| probed(hashed, self.probe.as_ref()))
            }
            _ => None,
        };
        Ok((layout, first))
    }

    fn resolve(&mut self, _env: Env, (layout, first): Self::Output) -> Result<Self::JsValue> {
        Ok(FileColumnLayout { first: first.map(value_hashes), ..layout })
    }
}

/// The layout of top-level column `column`; an error when it is there but is not a byte-array leaf the
/// hashes serve (nested, repeated, or of another type).
fn column_layout(parquet: &parquet::file::metadata::ParquetMetaData, column: &str) -> Result<FileColumnLayout> {
    let schema = parquet.file_metadata().schema_descr();
    let top = schema.root_schema().get_fields().iter().find(|f| f.name() == column);
    let Some(top) = top else {
        return Ok(FileColumnLayout {
            present: false,
            leaf: 0,
            binary: false,
            rows: Vec::new(),
            chunk_bytes: Vec::new(),
            uncompressed_bytes: Vec::new(),
            first: None,
        });
    };
    let not_served = || Error::from_reason(format!("column {column} is not a top-level byte-array column"));
    if !top.is_primitive() {
        return Err(not_served());
    }
    let leaf = (0..schema.num_columns())
        .find(|&i| schema.column(i).path().parts() == [column.to_string()])
        .ok_or_else(not_served)?;
    let descr = schema.column(leaf);
    if descr.physical_type() != PhysicalType::BYTE_ARRAY || descr.max_rep_level() != 0 {
        return Err(not_served());
    }
    let binary = match (descr.logical_type_ref(), descr.converted_type()) {
        (Some(LogicalType::String), _) | (None, ConvertedType::UTF8) => false,
        (None, ConvertedType::NONE) => true,
        _ => return Err(not_served()),
    };
    let groups = parquet.row_groups();
    Ok(FileColumnLayout {
        present: true,
        leaf: leaf as u32,
        binary,
        rows: groups.iter().map(|g| g.num_rows() as f64).collect(),
        chunk_bytes: groups.iter().map(|g| g.column(leaf).compressed_size() as f64).collect(),
        uncompressed_bytes: groups.iter().map(|g| g.column(leaf).uncompressed_size() as f64).collect(),
        first: None,
    })
}

/// Where the local file at `path` (refused unless `size` bytes long) keeps top-level column `column`, per row
/// group, read from its footer off the JavaScript thread; rejected when the column is there but is not a
/// byte-array leaf the hashes serve. Given a seed (`seed_lo`, `seed_hi`), the first row group's hashes come
/// too, decoded with the same footer: a probe of a one-row-group file then takes one task, not two. Given the
/// source's key hashes (`probe`) too, those hashes come with the answer whether a row has one of them.
#[napi(catch_unwind)]
pub fn file_column_layout<'env>(
    env: &'env Env,
    path: String,
    size: f64,
    column: String,
    seed_lo: Option<u32>,
    seed_hi: Option<u32>,
    probe: Option<Uint8Array>,
) -> Result<Object<'env>> {
    let first_seed = seed_lo.zip(seed_hi).map(|(lo, hi)| (u64::from(hi) << 32) | u64::from(lo));
    let probe = source_probe(probe)?;
    crate::cpu_pool::spawn_cpu_task(env, ColumnLayout { path, size, column, first_seed, probe })
}

/// `hashColumnValues` of leaf `leaf` in row group `row_group` of the local file at `path`.
pub struct HashFileValues {
    path: String,
    size: f64,
    row_group: u32,
    leaf: u32,
    seed: u64,
    with_values: bool,
    probe: Option<SourceProbe>,
}

impl Task for HashFileValues {
    type Output = Probed;
    type JsValue = ValueHashes;

    fn compute(&mut self) -> Result<Self::Output> {
        let (path, size, row_group, leaf) = (&self.path, self.size, self.row_group, self.leaf);
        let open = || crate::local_file::open_local_file(path, size);
        let hashed = hashed_leaf(open, |file| decode_leaf(file, row_group, leaf), self.seed, self.with_values)?;
        Ok(probed(hashed, self.probe.as_ref()))
    }

    fn resolve(&mut self, _env: Env, probed: Self::Output) -> Result<Self::JsValue> {
        Ok(value_hashes(probed))
    }
}

/// The hashes (and with `with_values` the values) of leaf `leaf` in row group `row_group` of the local file at
/// `path`, refused unless it is `size` bytes long: its footer and the chunk are read on the pool; given the
/// source's key hashes (`probe`), whether a row has one of them.
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn hash_file_column_values<'env>(
    env: &'env Env,
    path: String,
    size: f64,
    row_group: u32,
    leaf: u32,
    seed_lo: u32,
    seed_hi: u32,
    with_values: Option<bool>,
    probe: Option<Uint8Array>,
) -> Result<Object<'env>> {
    let seed = (u64::from(seed_hi) << 32) | u64::from(seed_lo);
    let with_values = with_values.unwrap_or(false);
    let task = HashFileValues { path, size, row_group, leaf, seed, with_values, probe: source_probe(probe)? };
    crate::cpu_pool::spawn_cpu_task(env, task)
}

/// Frees the bytes of a buffer this addon returned (a `ValueHashes` buffer's `.buffer`) now, not when V8
/// next collects it: the buffer is detached, so every view of it reads as empty from then on. False (and
/// nothing done) for a buffer that cannot be detached.
#[napi]
pub fn release_buffer(buffer: ArrayBuffer) -> bool {
    buffer.detach().is_ok()
}
