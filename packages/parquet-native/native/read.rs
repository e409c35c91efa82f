//! Parquet files decoded into Arrow: a file's bytes are copied in once (`openParquet`) and its footer parsed
//! once, then its row groups are decoded on demand. View types (Utf8View, BinaryView, at any depth) are read
//! as their plain types, as parquet-wasm does, so batches always fit the schemas the rest of deltalite uses.
//! A file's row groups are decoded all at once (`readRowGroups`) or one batch at a time (`streamRowGroups`),
//! so a passed-through file's decoded rows are held a batch at a time, not a row group at a time. A local file
//! can also be streamed from its path (`streamParquetFile`): its pages are then read as they are decoded, through
//! a read-only mapping where that is safe (`local_file.rs`), so none of its bytes are copied into the heap beyond
//! the pages of the batch being decoded.

use std::sync::{Arc, Weak};

use arrow_schema::{DataType, FieldRef, Fields, Schema, SchemaRef};
use bytes::Bytes;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader, ParquetRecordBatchReaderBuilder,
};
use parquet::file::reader::ChunkReader;

use crate::batch::{failure, NativeTable};
use crate::local_file::map_local_file;

#[napi]
pub struct NativeFile {
    bytes: Bytes,
    metadata: ArrowReaderMetadata,
}

fn has_view_types(fields: &Fields) -> bool {
    fields.iter().any(|field| match field.data_type() {
        DataType::Utf8View | DataType::BinaryView => true,
        DataType::Struct(children) => has_view_types(children),
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            has_view_types(&Fields::from(vec![item.clone()]))
        }
        _ => false,
    })
}

fn without_views(field: &FieldRef) -> FieldRef {
    let plain = |item: &FieldRef| without_views(item);
    let data_type = match field.data_type() {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        DataType::Struct(children) => DataType::Struct(children.iter().map(without_views).collect()),
        DataType::List(item) => DataType::List(plain(item)),
        DataType::LargeList(item) => DataType::LargeList(plain(item)),
        DataType::FixedSizeList(item, size) => DataType::FixedSizeList(plain(item), *size),
        other => other.clone(),
    };
    Arc::new(field.as_ref().clone().with_data_type(data_type))
}

/// The file's footer as Arrow metadata, its view types read as plain ones.
pub(crate) fn reader_metadata<T: ChunkReader>(input: &T) -> parquet::errors::Result<ArrowReaderMetadata> {
    let metadata = ArrowReaderMetadata::load(input, ArrowReaderOptions::default())?;
    let schema = metadata.schema();
    if !has_view_types(schema.fields()) {
        return Ok(metadata);
    }
    let fields: Vec<FieldRef> = schema.fields().iter().map(without_views).collect();
    let plain = Schema::new_with_metadata(fields, schema.metadata().clone());
    ArrowReaderMetadata::try_new(metadata.metadata().clone(), ArrowReaderOptions::new().with_schema(Arc::new(plain)))
}

/// A Parquet file held natively (its bytes copied in) with its footer parsed.
#[napi(catch_unwind)]
pub fn open_parquet(bytes: &[u8]) -> Result<NativeFile> {
    let bytes = Bytes::copy_from_slice(bytes);
    let metadata = reader_metadata(&bytes).map_err(failure)?;
    Ok(NativeFile { bytes, metadata })
}

/// A reader of `row_groups` of `input` (whose footer is `metadata`) in batches of at most `batch_size` rows.
pub(crate) fn batch_reader<T: ChunkReader + 'static>(
    input: T,
    metadata: &ArrowReaderMetadata,
    row_groups: Vec<u32>,
    batch_size: u32,
) -> Result<(SchemaRef, ParquetRecordBatchReader)> {
    let count = metadata.metadata().num_row_groups();
    if let Some(missing) = row_groups.iter().find(|&&g| g as usize >= count) {
        return Err(Error::from_reason(format!("row group {missing} asked of a file with {count}")));
    }
    let groups = row_groups.into_iter().map(|g| g as usize).collect();
    let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(input, metadata.clone())
        .with_row_groups(groups)
        .with_batch_size(batch_size.max(1) as usize);
    let schema = builder.schema().clone();
    Ok((schema, builder.build().map_err(failure)?))
}

impl NativeFile {
    fn reader(&self, row_groups: Vec<u32>, batch_size: u32) -> Result<(SchemaRef, ParquetRecordBatchReader)> {
        batch_reader(self.bytes.clone(), &self.metadata, row_groups, batch_size)
    }
}

#[napi]
impl NativeFile {
    #[napi(getter)]
    pub fn num_row_groups(&self) -> u32 {
        self.metadata.metadata().num_row_groups() as u32
    }

    /// The rows of `row_groups`, in batches of at most `batch_size` rows.
    #[napi(catch_unwind)]
    pub fn read_row_groups(&self, row_groups: Vec<u32>, batch_size: u32) -> Result<NativeTable> {
        let (schema, reader) = self.reader(row_groups, batch_size)?;
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>().map_err(failure)?;
        Ok(NativeTable { schema, batches })
    }

    /// The rows of `row_groups` as a stream of batches of at most `batch_size` rows, each decoded when it is
    /// asked for. The stream shares the file's bytes: the file may be freed at once.
    #[napi(catch_unwind)]
    pub fn stream_row_groups(&self, row_groups: Vec<u32>, batch_size: u32) -> Result<NativeBatchStream> {
        let (schema, reader) = self.reader(row_groups, batch_size)?;
        Ok(NativeBatchStream { schema, reader: Some(reader), buffer_alive: Weak::new() })
    }

    /// Releases the file's bytes now.
    #[napi]
    pub fn free(&mut self) {
        self.bytes = Bytes::new();
    }
}

/// A caller's buffer read in place: it lives (its napi reference held) while any `Bytes` made from it does.
/// `_alive` is dropped with it, which is how a stream tells that the buffer is no longer read.
struct Held {
    buffer: Uint8Array,
    _alive: Arc<()>,
}

impl AsRef<[u8]> for Held {
    fn as_ref(&self) -> &[u8] {
        &self.buffer
    }
}

/// The rows of `row_groups` (all when absent) of the Parquet file `bytes` as a stream of batches of at most `batch_size` rows,
/// read in place (no copy: the caller must neither change nor transfer `bytes` until the stream says it is
/// `released`).
#[napi(catch_unwind)]
pub fn stream_parquet(bytes: Uint8Array, row_groups: Option<Vec<u32>>, batch_size: u32) -> Result<NativeBatchStream> {
    let alive = Arc::new(());
    let buffer_alive = Arc::downgrade(&alive);
    let bytes = Bytes::from_owner(Held { buffer: bytes, _alive: alive });
    let metadata = reader_metadata(&bytes).map_err(failure)?;
    let file = NativeFile { bytes, metadata };
    let row_groups = row_groups.unwrap_or_else(|| (0..file.num_row_groups()).collect());
    let (schema, reader) = file.reader(row_groups, batch_size)?;
    Ok(NativeBatchStream { schema, reader: Some(reader), buffer_alive })
}

/// The rows of `row_groups` (all when absent) of the Parquet file at `path` as a stream of batches of at most
/// `batch_size` rows, each batch's pages read from the file when it is decoded. `size` is the length the
/// caller knows the file by (a Delta Add's): a file of another length is refused before anything is read.
#[napi(catch_unwind)]
pub fn stream_parquet_file(
    path: String,
    size: f64,
    row_groups: Option<Vec<u32>>,
    batch_size: u32,
) -> Result<NativeBatchStream> {
    let file = map_local_file(&path, size)?;
    let metadata = reader_metadata(&file).map_err(failure)?;
    let row_groups = row_groups.unwrap_or_else(|| (0..metadata.metadata().num_row_groups() as u32).collect());
    let (schema, reader) = batch_reader(file, &metadata, row_groups, batch_size)?;
    Ok(NativeBatchStream { schema, reader: Some(reader), buffer_alive: Weak::new() })
}

/// Batches of a file's row groups decoded one at a time (`NativeFile::stream_row_groups`, `stream_parquet`,
/// `stream_parquet_file`).
#[napi]
pub struct NativeBatchStream {
    schema: SchemaRef,
    reader: Option<ParquetRecordBatchReader>,
    /// Whether a caller's buffer read in place is still referenced (never, for a file's copied bytes).
    buffer_alive: Weak<()>,
}

#[napi]
impl NativeBatchStream {
    /// The next batch as a table of one batch; null once the rows are all read (the stream is then freed).
    #[napi(catch_unwind)]
    pub fn next_table(&mut self) -> Result<Option<NativeTable>> {
        let Some(reader) = self.reader.as_mut() else { return Ok(None) };
        match reader.next() {
            Some(batch) => Ok(Some(NativeTable { schema: self.schema.clone(), batches: vec![batch.map_err(failure)?] })),
            None => {
                self.reader = None;
                Ok(None)
            }
        }
    }

    /// Releases the stream and the file's bytes it shares now.
    #[napi]
    pub fn free(&mut self) {
        self.reader = None;
    }

    /// True once nothing made by this stream reads the buffer it was given: the stream is done or freed and
    /// no decoded value shares the buffer's memory. Only then may the caller transfer (detach) it.
    #[napi(getter)]
    pub fn released(&self) -> bool {
        self.buffer_alive.upgrade().is_none()
    }
}
