//! Row selection for parquet-stream's `takeRows` (its arrow/take.ts): gathers of fixed-width values, of
//! variable-width values (offsets and bytes) and of bits (booleans, validity) by row index, into arrays the
//! caller made. JavaScript runs these loops cold, once per call: an upsert's per-partition takes of a 10k-row
//! source took 28–39 ms there, most of it one subarray per string value (merge-engine BENCHMARKS.md, session
//! 29). Every index is checked
//! against the input before any byte is copied; the outputs must be exactly as long as the gather fills.

use napi::bindgen_prelude::{Int32Array, Uint8Array};
use napi::{Error, Result};
use napi_derive::napi;

fn out_of_range(what: &str) -> Error {
    Error::from_reason(format!("gather: {what}"))
}

/// Row `indices[i]`'s `width` bytes of `values` into `out[i * width..]` (`out` holds `indices.len() * width`).
#[napi]
pub fn gather_fixed(values: Uint8Array, width: u32, indices: Int32Array, mut out: Uint8Array) -> Result<()> {
    let width = width as usize;
    let rows = values.len() / width.max(1);
    if width == 0 || out.len() != indices.len() * width {
        return Err(out_of_range("the output is not one value per index"));
    }
    if indices.iter().any(|&row| row < 0 || row as usize >= rows) {
        return Err(out_of_range("an index is outside the values"));
    }
    // SAFETY: `out` is a fresh array of the caller's, read by nothing else during this synchronous call.
    let target = unsafe { out.as_mut() };
    for (to, &row) in target.chunks_exact_mut(width).zip(indices.iter()) {
        let from = row as usize * width;
        to.copy_from_slice(&values[from..from + width]);
    }
    Ok(())
}

/// Rows `indices` of a variable-width column (`offsets` into `values`, one more than its rows): their bytes
/// into `out_values` and their offsets, from zero, into `out_offsets` (`indices.len() + 1` entries).
#[napi]
pub fn gather_variable(
    values: Uint8Array,
    offsets: Int32Array,
    indices: Int32Array,
    mut out_values: Uint8Array,
    mut out_offsets: Int32Array,
) -> Result<()> {
    let rows = offsets.len().saturating_sub(1);
    if out_offsets.len() != indices.len() + 1 {
        return Err(out_of_range("the output offsets are not one more than the indices"));
    }
    let mut total = 0usize;
    for &row in indices.iter() {
        if row < 0 || row as usize >= rows {
            return Err(out_of_range("an index is outside the offsets"));
        }
        let (start, end) = (offsets[row as usize], offsets[row as usize + 1]);
        if start < 0 || end < start || end as usize > values.len() {
            return Err(out_of_range("an offset is outside the values"));
        }
        total += (end - start) as usize;
    }
    if total != out_values.len() || total > i32::MAX as usize {
        return Err(out_of_range("the output values are not the selected bytes"));
    }
    // SAFETY: both outputs are fresh arrays of the caller's, read by nothing else during this synchronous call.
    let (bytes, ends) = unsafe { (out_values.as_mut(), out_offsets.as_mut()) };
    let mut at = 0usize;
    ends[0] = 0;
    for (i, &row) in indices.iter().enumerate() {
        let (start, end) = (offsets[row as usize] as usize, offsets[row as usize + 1] as usize);
        bytes[at..at + end - start].copy_from_slice(&values[start..end]);
        at += end - start;
        ends[i + 1] = at as i32;
    }
    Ok(())
}

/// Bits `offset + indices[i]` of `bits` (least significant bit first, as Arrow packs them) into bit i of `out`
/// (`ceil(indices.len() / 8)` bytes, all zero): a boolean column's values or a validity bitmap. Returns how many
/// of the gathered bits are set.
#[napi]
pub fn gather_bits(bits: Uint8Array, offset: u32, indices: Int32Array, mut out: Uint8Array) -> Result<u32> {
    if out.len() != indices.len().div_ceil(8) {
        return Err(out_of_range("the output is not one bit per index"));
    }
    let available = bits.len() * 8;
    if indices.iter().any(|&row| row < 0 || row as usize + offset as usize >= available) {
        return Err(out_of_range("an index is outside the bits"));
    }
    // SAFETY: `out` is a fresh array of the caller's, read by nothing else during this synchronous call.
    let target = unsafe { out.as_mut() };
    let mut set = 0u32;
    for (i, &row) in indices.iter().enumerate() {
        let at = row as usize + offset as usize;
        let bit = (bits[at >> 3] >> (at & 7)) & 1;
        target[i >> 3] |= bit << (i & 7);
        set += u32::from(bit);
    }
    Ok(set)
}
