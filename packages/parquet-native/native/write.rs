//! Arrow batches encoded into Parquet: writer properties from JavaScript, a file written batch by batch whose
//! bytes are handed out as each row group is flushed, and a whole table written at once; and the output a
//! writer stream (`stream.rs`) writes a file in place through: the store's local temp file, around the page
//! cache where the filesystem allows (`direct_file.rs`), else through it and synced behind the writer at each
//! row group (`sync_behind.rs`), synced at its end. The bytes returned are copied into JavaScript-owned buffers, so a
//! worker can transfer them to another thread.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

use crate::batch::{failure, NativeBatch, NativeSchema, NativeTable};
use crate::direct_file::DirectFile;
use crate::sync_behind::SyncBehind;

/// The writer properties the encoder sets (the rest stay at parquet-rs's defaults, as with parquet-wasm).
#[napi(object)]
pub struct NativeWriterProperties {
    /// "1.0" or "2.0".
    pub writer_version: Option<String>,
    /// "snappy", "zstd" or "uncompressed".
    pub compression: Option<String>,
    pub max_row_group_size: Option<u32>,
    pub max_row_group_bytes: Option<f64>,
    /// "none", "chunk" or "page".
    pub statistics: Option<String>,
    pub created_by: Option<String>,
    pub key_value_metadata: Option<BTreeMap<String, String>>,
    /// Columns written without a dictionary.
    pub plain_columns: Option<Vec<String>>,
    /// Columns written with a codec of their own (names as `compression`'s), by column path.
    pub column_compression: Option<BTreeMap<String, String>>,
}

fn compression(name: &str) -> Result<Compression> {
    match name {
        "snappy" => Ok(Compression::SNAPPY),
        "zstd" => Ok(Compression::ZSTD(ZstdLevel::default())),
        "uncompressed" => Ok(Compression::UNCOMPRESSED),
        other => Err(Error::from_reason(format!("unknown Parquet compression {other}"))),
    }
}

fn statistics(name: &str) -> Result<EnabledStatistics> {
    match name {
        "none" => Ok(EnabledStatistics::None),
        "chunk" => Ok(EnabledStatistics::Chunk),
        "page" => Ok(EnabledStatistics::Page),
        other => Err(Error::from_reason(format!("unknown Parquet statistics level {other}"))),
    }
}

pub(crate) fn properties(given: NativeWriterProperties) -> Result<WriterProperties> {
    let mut builder = WriterProperties::builder();
    if let Some(version) = given.writer_version {
        builder = builder.set_writer_version(match version.as_str() {
            "2.0" => WriterVersion::PARQUET_2_0,
            _ => WriterVersion::PARQUET_1_0,
        });
    }
    if let Some(name) = given.compression {
        builder = builder.set_compression(compression(&name)?);
    }
    if let Some(rows) = given.max_row_group_size {
        builder = builder.set_max_row_group_row_count(Some(rows.max(1) as usize));
    }
    if let Some(bytes) = given.max_row_group_bytes {
        builder = builder.set_max_row_group_bytes(Some((bytes as usize).max(1)));
    }
    if let Some(level) = given.statistics {
        builder = builder.set_statistics_enabled(statistics(&level)?);
    }
    if let Some(created_by) = given.created_by {
        builder = builder.set_created_by(created_by);
    }
    if let Some(entries) = given.key_value_metadata {
        let pairs = entries.into_iter().map(|(k, v)| KeyValue::new(k, Some(v))).collect();
        builder = builder.set_key_value_metadata(Some(pairs));
    }
    for column in given.plain_columns.unwrap_or_default() {
        builder = builder.set_column_dictionary_enabled(ColumnPath::from(column), false);
    }
    for (column, name) in given.column_compression.unwrap_or_default() {
        builder = builder.set_column_compression(ColumnPath::from(column), compression(&name)?);
    }
    Ok(builder.build())
}

fn to_js<'env>(env: &'env Env, bytes: &[u8]) -> Result<Uint8ArraySlice<'env>> {
    Uint8ArraySlice::copy_from(env, bytes)
}

/// Where a file's bytes go: a buffer handed out to JavaScript, or a new local file written in place (around
/// the page cache where the filesystem allows, else through it).
pub(crate) enum Output {
    Memory(Vec<u8>),
    /// A file written through the page cache, synced behind its writer where that can be set up.
    File(File, Option<SyncBehind>),
    Direct(DirectFile),
}

impl Write for Output {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Memory(buffer) => buffer.write(bytes),
            Output::File(file, _) => file.write(bytes),
            Output::Direct(file) => file.write(bytes),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self {
            Output::Memory(buffer) => buffer.write_all(bytes),
            Output::File(file, _) => file.write_all(bytes),
            Output::Direct(file) => file.write_all(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Memory(_) => Ok(()),
            Output::File(file, _) => file.flush(),
            Output::Direct(file) => file.flush(),
        }
    }
}

impl Output {
    /// The store's new empty temp file at `path`, opened for writing in place: through the page cache, or
    /// around it where `DELTALITE_DIRECT_IO=1` asks and the filesystem allows (direct_file.rs). Opened, never created: once the store has discarded it (a failed or
    /// aborted write) the writer fails instead of leaving a file behind.
    pub(crate) fn in_place(path: &str) -> Result<Output> {
        Ok(match DirectFile::open(path) {
            Some(direct) => Output::Direct(direct),
            None => {
                let file = OpenOptions::new()
                    .read(true) // the footer is read back once written
                    .write(true)
                    .truncate(true)
                    .open(path)
                    .map_err(|error| Error::from_reason(format!("cannot open {path}: {error}")))?;
                Output::File(file, SyncBehind::open(path))
            }
        })
    }

    /// A file written in place, complete (footer written): the file, its size and its footer with the trailer.
    /// Not for a memory output.
    pub(crate) fn completed_in_place(self) -> Result<(File, u64, Vec<u8>)> {
        let file = match self {
            Output::Memory(_) => return Err(Error::from_reason("a Parquet file in memory is not written in place")),
            Output::File(file, _) => file,
            Output::Direct(direct) => direct
                .finish()
                .map_err(|error| Error::from_reason(format!("writing the Parquet file's tail: {error}")))?,
        };
        let stat = |error: std::io::Error| Error::from_reason(format!("reading the Parquet file's size: {error}"));
        let size = file.metadata().map_err(stat)?.len();
        let footer = footer_of(&file, size)?;
        Ok((file, size, footer))
    }
}

/// After a write that flushed row groups: pushes their bytes from the writer's buffer into its output (a file
/// written through the page cache is synced behind, `sync_behind.rs`, or else starts its writeback); returns the memory output's bytes, if that is where
/// they went.
pub(crate) fn pass_on_flushed(writer: &mut ArrowWriter<Output>) -> Result<Option<&mut Vec<u8>>> {
    writer.sync().map_err(failure)?;
    Ok(match writer.inner_mut() {
        Output::Memory(output) => Some(output),
        Output::File(file, behind) => {
            match behind {
                Some(behind) => behind.request(),
                None => start_writeback(file),
            }
            None
        }
        Output::Direct(_) => None,
    })
}

/// `fsync` of a finished file, as the local store syncs what it stores.
pub(crate) fn sync_file(file: &File) -> Result<()> {
    file.sync_all().map_err(|error| Error::from_reason(format!("syncing the Parquet file: {error}")))
}

/// Starts the kernel writing `file`'s dirty pages to disk without waiting for it (Linux `sync_file_range`,
/// `SYNC_FILE_RANGE_WRITE`), so the `fsync` at the file's end finds little left to write; elsewhere, nothing.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    extern "C" {
        fn sync_file_range(fd: i32, offset: i64, nbytes: i64, flags: u32) -> i32;
    }
    const SYNC_FILE_RANGE_WRITE: u32 = 2;
    // A hint: a failure here leaves the pages to the final fsync, which reports any real error.
    unsafe { sync_file_range(file.as_raw_fd(), 0, 0, SYNC_FILE_RANGE_WRITE) };
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File) {}

/// The Parquet footer of the complete file `file` of `size` bytes, with its 8-byte trailer (length and magic):
/// what JavaScript parses the written file's metadata from.
fn footer_of(mut file: &File, size: u64) -> Result<Vec<u8>> {
    let io = |error: std::io::Error| Error::from_reason(format!("reading back the Parquet footer: {error}"));
    if size < 8 {
        return Err(Error::from_reason("the Parquet file written is shorter than its trailer"));
    }
    let mut trailer = [0u8; 8];
    file.seek(SeekFrom::Start(size - 8)).map_err(io)?;
    file.read_exact(&mut trailer).map_err(io)?;
    let length = u64::from(u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]));
    if length + 8 > size {
        return Err(Error::from_reason("the Parquet footer written is longer than its file"));
    }
    let mut footer = vec![0u8; (length + 8) as usize];
    file.seek(SeekFrom::Start(size - 8 - length)).map_err(io)?;
    file.read_exact(&mut footer).map_err(io)?;
    Ok(footer)
}

/// One Parquet file being written: batches in, the bytes of each flushed row group out. A file that stays
/// below `hold_below_bytes` is kept here and handed out whole by `finish` (one buffer, no join in
/// JavaScript); once it reaches that size, what it holds and every later row group go out as they flush.
/// The output buffer is reused from one row group to the next (its pages stay mapped): in the recent 1M
/// upsert the encoder worker took ~40,000 page faults a call, a fresh buffer grown for every row group and
/// each small file joined again in JavaScript among them. (Files written in place: stream.rs.)
#[napi]
pub struct NativeFileWriter {
    writer: Option<ArrowWriter<Output>>,
    flushed_row_groups: usize,
    hold_below_bytes: usize,
    /// The whole file's size, once finished.
    finished_bytes: Option<u64>,
}

impl NativeFileWriter {
    fn writer(&mut self) -> Result<&mut ArrowWriter<Output>> {
        self.writer.as_mut().ok_or_else(|| Error::from_reason("Parquet file writer already finished"))
    }
}

#[napi]
impl NativeFileWriter {
    /// A writer of `schema`; `hold_below_bytes` (0 when absent) as the struct says.
    #[napi(constructor, catch_unwind)]
    pub fn new(schema: &NativeSchema, props: NativeWriterProperties, hold_below_bytes: Option<f64>) -> Result<Self> {
        let hold_below_bytes = hold_below_bytes.unwrap_or(0.0).max(0.0) as usize;
        // Reserved, not touched: only the pages written are ever mapped.
        let output = Output::Memory(Vec::with_capacity(hold_below_bytes));
        let writer = ArrowWriter::try_new(output, schema.inner.clone(), Some(properties(props)?)).map_err(failure)?;
        Ok(NativeFileWriter { writer: Some(writer), flushed_row_groups: 0, hold_below_bytes, finished_bytes: None })
    }

    /// Encodes `batch`; returns the bytes of the row groups it closed, if it closed any and the file is no
    /// longer held.
    #[napi(catch_unwind)]
    pub fn write<'env>(&mut self, env: &'env Env, batch: &NativeBatch) -> Result<Option<Uint8ArraySlice<'env>>> {
        let batch = batch.batch()?.clone();
        let known = self.flushed_row_groups;
        let hold_below = self.hold_below_bytes;
        let writer = self.writer()?;
        writer.write(&batch).map_err(failure)?;
        let flushed = writer.flushed_row_groups().len();
        if flushed == known || writer.bytes_written() < hold_below {
            return Ok(None);
        }
        let Some(output) = pass_on_flushed(writer)? else { return Ok(None) };
        let bytes = to_js(env, output)?;
        output.clear(); // keeps its capacity, and with it its mapped pages, for the next row group
        self.flushed_row_groups = flushed;
        Ok(Some(bytes))
    }

    /// Bytes written so far, including those not yet handed out (once finished, the whole file's size).
    #[napi(getter)]
    pub fn bytes_written(&self) -> f64 {
        match (&self.writer, self.finished_bytes) {
            (Some(writer), _) => writer.bytes_written() as f64,
            (None, Some(size)) => size as f64,
            (None, None) => 0.0,
        }
    }

    /// Flushes the last row group and writes the footer; returns the bytes not yet handed out.
    #[napi(catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Uint8ArraySlice<'env>> {
        let writer = self.writer.take().ok_or_else(|| Error::from_reason("Parquet file writer already finished"))?;
        let Output::Memory(bytes) = writer.into_inner().map_err(failure)? else {
            return Err(Error::from_reason("a Parquet file writer's output is memory"));
        };
        self.finished_bytes = Some(bytes.len() as u64);
        to_js(env, &bytes)
    }
}

/// One whole table as one Parquet file's bytes.
#[napi(catch_unwind)]
pub fn write_parquet<'env>(
    env: &'env Env,
    table: &NativeTable,
    props: NativeWriterProperties,
) -> Result<Uint8ArraySlice<'env>> {
    let mut writer =
        ArrowWriter::try_new(Vec::new(), table.schema.clone(), Some(properties(props)?)).map_err(failure)?;
    for batch in &table.batches {
        writer.write(batch).map_err(failure)?;
    }
    let bytes = writer.into_inner().map_err(failure)?;
    to_js(env, &bytes)
}
