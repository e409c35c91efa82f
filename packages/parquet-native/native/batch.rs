//! Arrow data held natively for JavaScript: a schema, a record batch, a table of batches; Arrow IPC streams in.
//! `free` releases a value's buffers at once (JavaScript's collector may run much later).

use arrow_array::builder::BooleanBufferBuilder;
use arrow_array::{BooleanArray, RecordBatch};
use arrow_ipc::reader::StreamReader;
use arrow_schema::SchemaRef;
use arrow_select::filter::filter_record_batch;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::dictionary_policy::Thresholds;

pub(crate) fn failure(error: impl std::fmt::Display) -> Error {
    Error::from_reason(error.to_string())
}

fn freed() -> Error {
    Error::from_reason("native Arrow value used after free")
}

#[napi]
pub struct NativeSchema {
    pub(crate) inner: SchemaRef,
}

#[napi]
pub struct NativeBatch {
    pub(crate) inner: Option<RecordBatch>,
}

impl NativeBatch {
    pub(crate) fn batch(&self) -> Result<&RecordBatch> {
        self.inner.as_ref().ok_or_else(freed)
    }
}

#[napi]
impl NativeBatch {
    #[napi(getter)]
    pub fn num_rows(&self) -> Result<u32> {
        Ok(self.batch()?.num_rows() as u32)
    }

    #[napi(getter)]
    pub fn schema(&self) -> Result<NativeSchema> {
        Ok(NativeSchema { inner: self.batch()?.schema() })
    }

    /// Rows [offset, offset + length), sharing this batch's buffers.
    #[napi(catch_unwind)]
    pub fn slice(&self, offset: u32, length: u32) -> Result<NativeBatch> {
        let batch = self.batch()?;
        if offset as usize + length as usize > batch.num_rows() {
            return Err(Error::from_reason("slice past the batch's rows"));
        }
        Ok(NativeBatch { inner: Some(batch.slice(offset as usize, length as usize)) })
    }

    /// The columns of `names` (top-level; fixed-width, string or binary) to write PLAIN: those whose values are
    /// mostly distinct in `sampleRows` rows spread over this batch (at least `minValues` non-null, more than
    /// `maxShare` of them distinct), a string or binary one only when the batch's dictionary would reach
    /// `dictionaryLimit` bytes: dictionary_policy.rs, parquet-stream's dictionary policy natively.
    #[napi]
    pub fn plain_columns(
        &self,
        names: Vec<String>,
        sample_rows: u32,
        max_share: f64,
        min_values: u32,
        dictionary_limit: f64,
    ) -> Result<Vec<String>> {
        let batch = self.batch()?;
        let thresholds = Thresholds { sample_rows: f64::from(sample_rows), max_share, min_values, dictionary_limit };
        Ok(crate::dictionary_policy::plain_columns(batch, &names, &thresholds))
    }

    /// The rows of the ranges [starts[i], ends[i]) (ascending, apart), copied into one batch: a file passed
    /// through with hundreds of rows left out becomes one batch to encode, not hundreds of slices.
    #[napi(catch_unwind)]
    pub fn keep_ranges(&self, starts: Vec<u32>, ends: Vec<u32>) -> Result<NativeBatch> {
        if starts.len() != ends.len() {
            return Err(Error::from_reason("keepRanges: starts and ends differ in length"));
        }
        let ranges: Vec<(usize, usize)> = starts.iter().zip(&ends).map(|(&s, &e)| (s as usize, e as usize)).collect();
        Ok(NativeBatch { inner: Some(rows_in_ranges(self.batch()?, &ranges)?) })
    }

    /// The same columns under `schema`, refused unless `schema` contains the batch's own (names, types).
    #[napi(catch_unwind)]
    pub fn with_schema(&self, schema: &NativeSchema) -> Result<NativeBatch> {
        let relabelled = self.batch()?.clone().with_schema(schema.inner.clone()).map_err(failure)?;
        Ok(NativeBatch { inner: Some(relabelled) })
    }

    #[napi]
    pub fn free(&mut self) {
        self.inner = None;
    }
}

/// The rows of `batch` in the ranges [start, end) (ascending, apart) copied into one batch.
pub(crate) fn rows_in_ranges(batch: &RecordBatch, ranges: &[(usize, usize)]) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let mut keep = BooleanBufferBuilder::new(rows);
    let mut at = 0usize;
    for &(start, end) in ranges {
        if start < at || end < start || end > rows {
            return Err(Error::from_reason("keepRanges: ranges must ascend within the batch's rows"));
        }
        keep.append_n(start - at, false);
        keep.append_n(end - start, true);
        at = end;
    }
    keep.append_n(rows - at, false);
    let mask = BooleanArray::new(keep.finish(), None);
    filter_record_batch(batch, &mask).map_err(failure)
}

#[napi]
pub struct NativeTable {
    pub(crate) schema: SchemaRef,
    pub(crate) batches: Vec<RecordBatch>,
}

#[napi]
impl NativeTable {
    #[napi(getter)]
    pub fn schema(&self) -> NativeSchema {
        NativeSchema { inner: self.schema.clone() }
    }

    #[napi(getter)]
    pub fn num_rows(&self) -> u32 {
        self.batches.iter().map(|b| b.num_rows() as u32).sum()
    }

    /// The table's batches (they share its buffers).
    #[napi]
    pub fn record_batches(&self) -> Vec<NativeBatch> {
        self.batches.iter().map(|b| NativeBatch { inner: Some(b.clone()) }).collect()
    }

    #[napi]
    pub fn free(&mut self) {
        self.batches = Vec::new();
    }
}

/// An Arrow IPC stream's schema and batches.
#[napi(catch_unwind)]
pub fn table_from_ipc_stream(ipc: &[u8]) -> Result<NativeTable> {
    let reader = StreamReader::try_new(std::io::Cursor::new(ipc), None).map_err(failure)?;
    let schema = reader.schema();
    let batches = reader.collect::<std::result::Result<Vec<_>, _>>().map_err(failure)?;
    Ok(NativeTable { schema, batches })
}
