//! Arrow batches encoded into Parquet: writer properties from JavaScript, a file written batch by batch whose
//! bytes are handed out as each row group is flushed, and a whole table written at once. The bytes returned
//! are copied into JavaScript-owned buffers, so a worker can transfer them to another thread.

use std::collections::BTreeMap;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

use crate::batch::{failure, NativeBatch, NativeSchema, NativeTable};

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

fn properties(given: NativeWriterProperties) -> Result<WriterProperties> {
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
    Ok(builder.build())
}

fn to_js<'env>(env: &'env Env, bytes: &[u8]) -> Result<Uint8ArraySlice<'env>> {
    Uint8ArraySlice::copy_from(env, bytes)
}

/// One Parquet file being written: batches in, the bytes of each flushed row group out.
#[napi]
pub struct NativeFileWriter {
    writer: Option<ArrowWriter<Vec<u8>>>,
    flushed_row_groups: usize,
}

impl NativeFileWriter {
    fn writer(&mut self) -> Result<&mut ArrowWriter<Vec<u8>>> {
        self.writer.as_mut().ok_or_else(|| Error::from_reason("Parquet file writer already finished"))
    }
}

#[napi]
impl NativeFileWriter {
    #[napi(constructor, catch_unwind)]
    pub fn new(schema: &NativeSchema, props: NativeWriterProperties) -> Result<Self> {
        let writer = ArrowWriter::try_new(Vec::new(), schema.inner.clone(), Some(properties(props)?)).map_err(failure)?;
        Ok(NativeFileWriter { writer: Some(writer), flushed_row_groups: 0 })
    }

    /// Encodes `batch`; returns the bytes of the row groups it closed, if it closed any.
    #[napi(catch_unwind)]
    pub fn write<'env>(&mut self, env: &'env Env, batch: &NativeBatch) -> Result<Option<Uint8ArraySlice<'env>>> {
        let batch = batch.batch()?.clone();
        let known = self.flushed_row_groups;
        let writer = self.writer()?;
        writer.write(&batch).map_err(failure)?;
        let flushed = writer.flushed_row_groups().len();
        if flushed == known {
            return Ok(None);
        }
        writer.sync().map_err(failure)?;
        let bytes = std::mem::take(writer.inner_mut());
        self.flushed_row_groups = flushed;
        Ok(Some(to_js(env, &bytes)?))
    }

    /// Bytes written so far, including those not yet handed out.
    #[napi(getter)]
    pub fn bytes_written(&self) -> f64 {
        self.writer.as_ref().map_or(0.0, |w| w.bytes_written() as f64)
    }

    /// Flushes the last row group and writes the footer; returns the bytes not yet handed out.
    #[napi(catch_unwind)]
    pub fn finish<'env>(&mut self, env: &'env Env) -> Result<Uint8ArraySlice<'env>> {
        let writer = self.writer.take().ok_or_else(|| Error::from_reason("Parquet file writer already finished"))?;
        let bytes = writer.into_inner().map_err(failure)?;
        to_js(env, &bytes)
    }
}

/// One whole table as one Parquet file's bytes.
#[napi(catch_unwind)]
pub fn write_parquet<'env>(env: &'env Env, table: &NativeTable, props: NativeWriterProperties) -> Result<Uint8ArraySlice<'env>> {
    let mut writer = ArrowWriter::try_new(Vec::new(), table.schema.clone(), Some(properties(props)?)).map_err(failure)?;
    for batch in &table.batches {
        writer.write(batch).map_err(failure)?;
    }
    let bytes = writer.into_inner().map_err(failure)?;
    to_js(env, &bytes)
}
