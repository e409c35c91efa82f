//! The dictionary policy's judgement of a decoded batch, natively: which of the named top-level fixed-width
//! columns hold mostly distinct values in an evenly spread sample of rows, so the writer encodes them PLAIN.
//! It is parquet-stream's `plainColumns` (write/dictionary-policy.ts) rule for rule: the same rows sampled
//! (the same float steps), values keyed by the same 32-bit FNV-1a of their little-endian bytes (so a rare key
//! collision errs the same way), the same thresholds. The encoder worker asks it of the sample it decodes
//! from a passed-through file, which then needs no sample decoded in JavaScript
//! (parquet-stream/test/write-dictionary-policy-native.test.ts checks the two rules agree).

use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;

/// FNV-1a over a value's bytes, as dictionary-policy.ts keys it.
fn bytes_key(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |hash, &byte| (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193))
}

/// The byte width of a fixed-width column's values (none for another kind of column).
fn value_width(column: &ArrayRef) -> Option<usize> {
    match column.data_type() {
        DataType::FixedSizeBinary(width) => usize::try_from(*width).ok(),
        other => other.primitive_width(),
    }
}

/// Whether the sampled non-null values of `column` are mostly distinct (`sample_rows` rows spread evenly;
/// at least `min_values` of them non-null; more than `max_share` of those distinct).
fn mostly_distinct(column: &ArrayRef, sample_rows: f64, max_share: f64, min_values: u32) -> bool {
    let length = column.len();
    let Some(width) = value_width(column) else { return false };
    let data = column.to_data();
    let Some(buffer) = data.buffers().first() else { return false };
    if length == 0 {
        return false;
    }
    let values = &buffer.as_slice()[data.offset() * width..];
    let step = f64::max(1.0, length as f64 / sample_rows);
    let mut seen = std::collections::HashSet::new();
    let mut sampled = 0u32;
    let mut at = 0.0f64;
    while at < length as f64 {
        let i = at.floor() as usize;
        at += step;
        if column.is_null(i) {
            continue;
        }
        sampled += 1;
        seen.insert(bytes_key(&values[i * width..(i + 1) * width]));
    }
    sampled >= min_values && seen.len() as f64 > max_share * f64::from(sampled)
}

/// The columns of `names` (top-level, fixed-width) whose values in `batch` are mostly distinct.
pub fn plain_columns(
    batch: &RecordBatch,
    names: &[String],
    sample_rows: f64,
    max_share: f64,
    min_values: u32,
) -> Vec<String> {
    names
        .iter()
        .filter(|name| {
            batch.column_by_name(name).is_some_and(|column| mostly_distinct(column, sample_rows, max_share, min_values))
        })
        .cloned()
        .collect()
}
