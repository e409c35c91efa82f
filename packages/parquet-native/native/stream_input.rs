//! The inputs of a writer stream (`stream.rs`) and how they become the batches it encodes, by the encoder
//! worker's rules (parquet-stream `encoder-worker.ts`), so both engines cut the same batches and write the same
//! bytes: an Arrow IPC stream's non-empty batches as they are; a Parquet file passed through decoded from its
//! listed row groups in batches of `batch_rows`, each relabelled with the stream's schema, less the rows it
//! skips (the batch itself when it keeps them all, a slice for one kept range, else the kept ranges copied into
//! one batch). Also the dictionary policy's sample of a passed-through file.

use std::collections::VecDeque;

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use napi::bindgen_prelude::*;
use parquet::arrow::arrow_reader::ParquetRecordBatchReader;

use crate::batch::{failure, rows_in_ranges};
use crate::read::{batch_reader, open_local_file, reader_metadata};

/// Where a passed-through file is read from: a local file's path (refused unless `size` bytes long), or its
/// bytes.
pub(crate) enum FileSource {
    Path { path: String, size: f64 },
    Bytes(Bytes),
}

/// A Parquet file to pass through: its row groups to decode, in batches of `batch_rows`, less the file rows
/// `skip` names (ascending).
pub(crate) struct FileInput {
    pub source: FileSource,
    pub row_groups: Vec<u32>,
    pub batch_rows: u32,
    pub skip: Vec<i32>,
}

/// One queued input of a stream.
pub(crate) enum Input {
    Ipc(Vec<u8>),
    File(FileInput),
}

/// A reader of `row_groups` of the file in batches of `batch_rows`.
fn open_reader(source: &FileSource, row_groups: Vec<u32>, batch_rows: u32) -> Result<ParquetRecordBatchReader> {
    match source {
        FileSource::Path { path, size } => {
            let file = open_local_file(path, *size)?;
            let metadata = reader_metadata(&file).map_err(failure)?;
            Ok(batch_reader(file, &metadata, row_groups, batch_rows)?.1)
        }
        FileSource::Bytes(bytes) => {
            let metadata = reader_metadata(bytes).map_err(failure)?;
            Ok(batch_reader(bytes.clone(), &metadata, row_groups, batch_rows)?.1)
        }
    }
}

/// Where a walk through a passed-through file's decoded rows stands against its skipped rows.
#[derive(Default)]
struct SkipWalk {
    /// File rows decoded so far.
    row: i64,
    /// The first of the skipped rows not yet reached.
    at: usize,
}

impl SkipWalk {
    /// The [start, end) ranges of the next `rows` decoded rows that are kept (none of `skip`).
    fn kept_ranges(&mut self, skip: &[i32], rows: usize) -> Vec<(usize, usize)> {
        let first = self.row;
        let end = first + rows as i64;
        self.row = end;
        let mut ranges = Vec::new();
        let mut start = 0usize;
        while self.at < skip.len() && i64::from(skip[self.at]) < end {
            let at = (i64::from(skip[self.at]) - first).max(0) as usize;
            self.at += 1;
            if at > start {
                ranges.push((start, at));
            }
            start = at + 1;
        }
        if start < rows {
            ranges.push((start, rows));
        }
        ranges
    }
}

/// The rows of `batch` in `ranges` (at least one): the batch itself when it keeps them all, a slice (sharing
/// its buffers) for one range, else the ranges copied into one batch.
fn kept_rows(batch: RecordBatch, ranges: &[(usize, usize)]) -> Result<RecordBatch> {
    match ranges {
        [(0, end)] if *end == batch.num_rows() => Ok(batch),
        [(start, end)] => Ok(batch.slice(*start, end - start)),
        _ => rows_in_ranges(&batch, ranges),
    }
}

/// A passed-through file being decoded.
pub(crate) struct FileCursor {
    reader: ParquetRecordBatchReader,
    skip: Vec<i32>,
    walk: SkipWalk,
}

impl FileCursor {
    pub(crate) fn open(input: FileInput) -> Result<FileCursor> {
        let reader = open_reader(&input.source, input.row_groups, input.batch_rows)?;
        Ok(FileCursor { reader, skip: input.skip, walk: SkipWalk::default() })
    }

    /// Decodes the file's next batch into `carry` (relabelled with `schema`, less its skipped rows; nothing when
    /// it keeps no row); false once the file's rows are all read.
    pub(crate) fn decode_next(&mut self, schema: &SchemaRef, carry: &mut VecDeque<RecordBatch>) -> Result<bool> {
        let Some(batch) = self.reader.next() else { return Ok(false) };
        let batch = batch.map_err(failure)?;
        if batch.num_rows() == 0 {
            return Ok(true);
        }
        let labelled = batch.with_schema(schema.clone()).map_err(failure)?;
        let ranges = self.walk.kept_ranges(&self.skip, labelled.num_rows());
        if !ranges.is_empty() {
            carry.push_back(kept_rows(labelled, &ranges)?);
        }
        Ok(true)
    }
}

/// An IPC stream's non-empty batches, into `carry`: their arrays read in place from the stream's bytes (no
/// copy where a buffer is aligned for its type).
pub(crate) fn decode_ipc(ipc: Vec<u8>, carry: &mut VecDeque<RecordBatch>) -> Result<()> {
    let mut buffer = Buffer::from_vec(ipc);
    let mut decoder = StreamDecoder::new();
    while !buffer.is_empty() {
        match decoder.decode(&mut buffer).map_err(failure)? {
            Some(batch) if batch.num_rows() > 0 => carry.push_back(batch),
            _ => {}
        }
    }
    decoder.finish().map_err(failure)
}

/// The dictionary policy's sample of a passed-through file: its first batch of `batch_rows` rows (cut within
/// each row group) that keeps a row, less the rows it skips; none when it keeps no row.
pub(crate) fn file_sample(input: &FileInput, batch_rows: u32) -> Result<Option<RecordBatch>> {
    let mut walk = SkipWalk::default();
    for &row_group in &input.row_groups {
        for batch in open_reader(&input.source, vec![row_group], batch_rows)? {
            let batch = batch.map_err(failure)?;
            let ranges = walk.kept_ranges(&input.skip, batch.num_rows());
            if !ranges.is_empty() {
                return kept_rows(batch, &ranges).map(Some);
            }
        }
    }
    Ok(None)
}
