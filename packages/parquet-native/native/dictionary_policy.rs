//! The dictionary policy's judgement of a decoded batch, natively: which of the named top-level fixed-width,
//! string or binary columns to write PLAIN. It is parquet-stream's `plainColumns` (write/dictionary-policy.ts)
//! rule for rule: the same rows sampled (the same float steps), values keyed by the same 32-bit FNV-1a of
//! their bytes (so a rare key collision errs the same way), the same thresholds and the same float
//! arithmetic for a string column's projected dictionary. The encoder worker asks it of the sample it
//! decodes from a passed-through file, which then needs no sample decoded in JavaScript
//! (parquet-stream/test/write-dictionary-policy-native.test.ts checks the two rules agree).

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;

/// The policy's thresholds, as parquet-stream passes them.
pub struct Thresholds {
    /// Rows looked at, spread evenly over the batch.
    pub sample_rows: f64,
    /// A column whose sampled non-null values are more than this share distinct is mostly distinct.
    pub max_share: f64,
    /// Below this many sampled non-null values a column keeps the default.
    pub min_values: u32,
    /// A string column is written PLAIN only when its projected dictionary reaches this many bytes.
    pub dictionary_limit: f64,
}

/// The bytes parquet-rs counts for each dictionary value besides its own: the PLAIN length prefix.
const DICTIONARY_VALUE_PREFIX_BYTES: f64 = 4.0;

/// FNV-1a over a value's bytes, as dictionary-policy.ts keys it.
fn bytes_key(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5u32, |hash, &byte| (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193))
}

/// What the evenly spread sample of a column saw.
struct Sampled {
    /// Rows looked at, NULLs included.
    visited: u32,
    /// Non-null values among them.
    values: u32,
    /// Distinct keys of those values.
    distinct: usize,
    /// Their bytes, summed.
    bytes: f64,
}

/// The sample of `column`, row i's bytes given by `value` (`sample_rows` rows spread evenly).
fn sample_with<'a>(column: &dyn Array, sample_rows: f64, value: impl Fn(usize) -> &'a [u8]) -> Sampled {
    let length = column.len();
    let step = f64::max(1.0, length as f64 / sample_rows);
    let mut seen = std::collections::HashSet::new();
    let mut taken = Sampled { visited: 0, values: 0, distinct: 0, bytes: 0.0 };
    let mut at = 0.0f64;
    while at < length as f64 {
        let i = at.floor() as usize;
        at += step;
        taken.visited += 1;
        if column.is_null(i) {
            continue;
        }
        taken.values += 1;
        let bytes = value(i);
        taken.bytes += bytes.len() as f64;
        seen.insert(bytes_key(bytes));
    }
    taken.distinct = seen.len();
    taken
}

/// The sample of a judged column, and whether it holds byte arrays (none: the column is not judged).
fn sample(column: &ArrayRef, sample_rows: f64) -> Option<(Sampled, bool)> {
    let width = match column.data_type() {
        DataType::Utf8 => {
            let strings = column.as_string::<i32>();
            return Some((sample_with(column, sample_rows, |i| strings.value(i).as_bytes()), true));
        }
        DataType::LargeUtf8 => {
            let strings = column.as_string::<i64>();
            return Some((sample_with(column, sample_rows, |i| strings.value(i).as_bytes()), true));
        }
        DataType::Binary => {
            let binary = column.as_binary::<i32>();
            return Some((sample_with(column, sample_rows, |i| binary.value(i)), true));
        }
        DataType::LargeBinary => {
            let binary = column.as_binary::<i64>();
            return Some((sample_with(column, sample_rows, |i| binary.value(i)), true));
        }
        DataType::FixedSizeBinary(width) => usize::try_from(*width).ok()?,
        other => other.primitive_width()?,
    };
    let data = column.to_data();
    let values = &data.buffers().first()?.as_slice()[data.offset() * width..];
    Some((sample_with(column, sample_rows, |i| &values[i * width..(i + 1) * width]), false))
}

/// Whether `column` is written PLAIN: its sampled non-null values are mostly distinct, and for a string or
/// binary column the batch's dictionary would reach the limit (dictionary-policy.ts `writesPlain`, the same
/// float operations in the same order).
fn writes_plain(column: &ArrayRef, thresholds: &Thresholds) -> bool {
    if column.is_empty() {
        return false;
    }
    let Some((taken, byte_array)) = sample(column, thresholds.sample_rows) else { return false };
    let mostly_distinct =
        taken.values >= thresholds.min_values && taken.distinct as f64 > thresholds.max_share * f64::from(taken.values);
    if !mostly_distinct || !byte_array {
        return mostly_distinct;
    }
    let mean_value_bytes = taken.bytes / f64::from(taken.values) + DICTIONARY_VALUE_PREFIX_BYTES;
    (taken.distinct as f64 / f64::from(taken.visited)) * column.len() as f64 * mean_value_bytes
        >= thresholds.dictionary_limit
}

/// The columns of `names` (top-level; fixed-width, string or binary) that `batch` has written PLAIN.
pub fn plain_columns(batch: &RecordBatch, names: &[String], thresholds: &Thresholds) -> Vec<String> {
    names
        .iter()
        .filter(|name| batch.column_by_name(name).is_some_and(|column| writes_plain(column, thresholds)))
        .cloned()
        .collect()
}
