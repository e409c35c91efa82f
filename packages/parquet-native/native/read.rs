//! Parquet files decoded into Arrow: a file's bytes are copied in once (`openParquet`) and its footer parsed
//! once, then its row groups are decoded on demand. View types (Utf8View, BinaryView, at any depth) are read
//! as their plain types, as parquet-wasm does, so batches always fit the schemas the rest of deltalite uses.

use std::sync::Arc;

use arrow_schema::{DataType, FieldRef, Fields, Schema};
use bytes::Bytes;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};

use crate::batch::{failure, NativeTable};

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
fn reader_metadata(bytes: &Bytes) -> parquet::errors::Result<ArrowReaderMetadata> {
    let metadata = ArrowReaderMetadata::load(bytes, ArrowReaderOptions::default())?;
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

#[napi]
impl NativeFile {
    #[napi(getter)]
    pub fn num_row_groups(&self) -> u32 {
        self.metadata.metadata().num_row_groups() as u32
    }

    /// The rows of `row_groups`, in batches of at most `batch_size` rows.
    #[napi(catch_unwind)]
    pub fn read_row_groups(&self, row_groups: Vec<u32>, batch_size: u32) -> Result<NativeTable> {
        let count = self.metadata.metadata().num_row_groups();
        if let Some(missing) = row_groups.iter().find(|&&g| g as usize >= count) {
            return Err(Error::from_reason(format!("row group {missing} asked of a file with {count}")));
        }
        let groups = row_groups.into_iter().map(|g| g as usize).collect();
        let builder = ParquetRecordBatchReaderBuilder::new_with_metadata(self.bytes.clone(), self.metadata.clone())
            .with_row_groups(groups)
            .with_batch_size(batch_size.max(1) as usize);
        let schema = builder.schema().clone();
        let reader = builder.build().map_err(failure)?;
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>().map_err(failure)?;
        Ok(NativeTable { schema, batches })
    }

    /// Releases the file's bytes now.
    #[napi]
    pub fn free(&mut self) {
        self.bytes = Bytes::new();
    }
}
