//! The inputs of a writer stream (`stream.rs`) and how they become the batches it encodes, by the encoder
//! worker's rules (parquet-stream `encoder-worker.ts`), so both engines cut the same batches and write the same
//! bytes: an Arrow IPC stream's non-empty batches as they are; a Parquet file passed through decoded from its
//! listed row groups in batches of `batch_rows`, each relabelled with the stream's schema, less the rows it
//! skips (the batch itself when it keeps them all, a slice for one kept range, else the kept ranges copied into
//! one batch). Also the dictionary policy's sample of a passed-through file.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_select::concat::concat_batches;
use arrow_schema::SchemaRef;
use bytes::Bytes;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReader};

use crate::batch::{failure, rows_in_ranges};
use crate::local_file::map_local_file;
use crate::read::{batch_reader, reader_metadata};

/// Where a passed-through file is read from: a local file's path (refused unless `size` bytes long), or its
/// bytes.
#[derive(Clone)]
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

/// Dictionary policy samples this process took from a cursor's own batches (`FileCursor::sample_first`).
static SAMPLES_FROM_CURSOR: AtomicU32 = AtomicU32::new(0);

/// How many times a writer stream took the dictionary policy's sample from the batches of the passed-through
/// file it decodes anyway, not decoding it apart (tests: whether that ran).
#[napi]
pub fn samples_from_cursor() -> u32 {
    SAMPLES_FROM_CURSOR.load(Ordering::Relaxed)
}

/// A reader of `row_groups` of the file in batches of `batch_rows`, with the row count of the first of them.
fn open_reader(
    source: &FileSource,
    row_groups: Vec<u32>,
    batch_rows: u32,
) -> Result<(ParquetRecordBatchReader, i64)> {
    let first_group_rows = |metadata: &ArrowReaderMetadata| {
        let groups = metadata.metadata().row_groups();
        row_groups.first().and_then(|&g| groups.get(g as usize)).map_or(0, |g| g.num_rows())
    };
    match source {
        FileSource::Path { path, size } => {
            let file = map_local_file(path, *size)?;
            let metadata = reader_metadata(&file).map_err(failure)?;
            let rows = first_group_rows(&metadata);
            Ok((batch_reader(file, &metadata, row_groups, batch_rows)?.1, rows))
        }
        FileSource::Bytes(bytes) => {
            let metadata = reader_metadata(bytes).map_err(failure)?;
            let rows = first_group_rows(&metadata);
            Ok((batch_reader(bytes.clone(), &metadata, row_groups, batch_rows)?.1, rows))
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
    source: FileSource,
    row_groups: Vec<u32>,
    skip: Vec<i32>,
    walk: SkipWalk,
    batch_rows: u32,
    /// Rows of the first listed row group, and whether it is the only one: while the cursor's batches lie
    /// within it, they are cut where `file_sample` cuts them.
    first_group_rows: i64,
    one_group: bool,
}

/// One batch a cursor decoded: its kept rows as the file labels them, or none kept; or the end of the file.
enum Step {
    Kept(RecordBatch),
    NoneKept,
    Ended,
}

impl FileCursor {
    pub(crate) fn open(input: FileInput) -> Result<FileCursor> {
        let one_group = input.row_groups.len() == 1;
        let (reader, first_group_rows) = open_reader(&input.source, input.row_groups.clone(), input.batch_rows)?;
        Ok(FileCursor {
            reader,
            source: input.source,
            row_groups: input.row_groups,
            skip: input.skip,
            walk: SkipWalk::default(),
            batch_rows: input.batch_rows,
            first_group_rows,
            one_group,
        })
    }

    fn step(&mut self) -> Result<Step> {
        let Some(batch) = self.reader.next() else { return Ok(Step::Ended) };
        let batch = batch.map_err(failure)?;
        if batch.num_rows() == 0 {
            return Ok(Step::NoneKept);
        }
        let ranges = self.walk.kept_ranges(&self.skip, batch.num_rows());
        if ranges.is_empty() {
            return Ok(Step::NoneKept);
        }
        kept_rows(batch, &ranges).map(Step::Kept)
    }

    /// Decodes the file's next batch into `carry` (relabelled with `schema`, less its skipped rows; nothing when
    /// it keeps no row); false once the file's rows are all read.
    pub(crate) fn decode_next(&mut self, schema: &SchemaRef, carry: &mut VecDeque<RecordBatch>) -> Result<bool> {
        match self.step()? {
            Step::Ended => Ok(false),
            Step::NoneKept => Ok(true),
            Step::Kept(kept) => {
                carry.push_back(kept.with_schema(schema.clone()).map_err(failure)?);
                Ok(true)
            }
        }
    }

    /// The dictionary policy's sample (`file_sample`'s) for batches of `batch_rows`, put together from the
    /// cursor's own batches where they tile the sample's (the cursor's batch size divides `batch_rows`, unless
    /// the first listed row group is no longer, and that group's rows, unless it is the only one), so the file
    /// is decoded once, not twice; the batches it decodes go to `carry` as `decode_next` puts them. Otherwise
    /// decoded apart. Call before any `decode_next`.
    ///
    /// Measured: a cold recent 1M upsert (perf with frame pointers) spent ~28 ms of an encoder thread decoding
    /// each partition's first passed-through file a second time (BENCHMARKS.md, session 35).
    pub(crate) fn sample_first(
        &mut self,
        batch_rows: u32,
        schema: &SchemaRef,
        carry: &mut VecDeque<RecordBatch>,
    ) -> Result<Option<RecordBatch>> {
        let (sample, cursor) = (i64::from(batch_rows), i64::from(self.batch_rows));
        let group = self.first_group_rows;
        let tiled = (sample >= group || sample % cursor == 0) && (self.one_group || group % cursor == 0);
        if tiled {
            if let Some(found) = self.sample_by_tiles(sample, schema, carry)? {
                return Ok(found);
            }
        }
        let apart = FileInput {
            source: self.source.clone(),
            row_groups: self.row_groups.clone(),
            batch_rows,
            skip: self.skip.clone(),
        };
        file_sample(&apart, batch_rows)
    }

    /// `sample_first` over the cursor's batches: Some(the sample, or none when the file keeps no row), or None
    /// when they cannot tell (the first row group ends with no row kept and other groups follow, or the batches
    /// were not cut as expected): the sample is then decoded apart.
    fn sample_by_tiles(
        &mut self,
        sample: i64,
        schema: &SchemaRef,
        carry: &mut VecDeque<RecordBatch>,
    ) -> Result<Option<Option<RecordBatch>>> {
        let group_end = self.first_group_rows;
        let mut sample_end = sample.min(group_end);
        let mut parts: Vec<RecordBatch> = Vec::new();
        loop {
            if self.walk.row >= sample_end {
                if self.walk.row > sample_end {
                    return Ok(None);
                }
                if !parts.is_empty() {
                    SAMPLES_FROM_CURSOR.fetch_add(1, Ordering::Relaxed);
                    return joined(parts).map(|joined| Some(Some(joined)));
                }
                if sample_end >= group_end {
                    return Ok(if self.one_group { Some(None) } else { None });
                }
                sample_end = (sample_end + sample).min(group_end);
            }
            match self.step()? {
                Step::Ended => return Ok(None),
                Step::NoneKept => {}
                Step::Kept(kept) => {
                    carry.push_back(kept.clone().with_schema(schema.clone()).map_err(failure)?);
                    parts.push(kept);
                }
            }
        }
    }
}

/// The rows of `parts` (at least one, of one schema) as one batch.
fn joined(mut parts: Vec<RecordBatch>) -> Result<RecordBatch> {
    if parts.len() == 1 {
        return Ok(parts.remove(0));
    }
    concat_batches(&parts[0].schema(), &parts).map_err(failure)
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
        for batch in open_reader(&input.source, vec![row_group], batch_rows)?.0 {
            let batch = batch.map_err(failure)?;
            let ranges = walk.kept_ranges(&input.skip, batch.num_rows());
            if !ranges.is_empty() {
                return kept_rows(batch, &ranges).map(Some);
            }
        }
    }
    Ok(None)
}
