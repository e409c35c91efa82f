//! The probe's question asked where the hashes are made: does any non-NULL row of a column chunk hash to one of
//! an upsert partition's source keys? The caller passes the source's key hashes (8 little-endian bytes each,
//! any order); a row's hash first meets a one-bit-per-slot filter over the hashes' high words (16 or more
//! slots a hash, so about 1 in 16 other hashes passes) and only then a binary search. A "no" proves no row's
//! key is a source key; a "yes" may be a hash collision, which the caller's exact match of the values settles.
//! Asked in JavaScript over the hashes once they had crossed, this loop and its compiles took ~25 ms of a
//! cold recent-1M upsert's CPU (merge-engine BENCHMARKS.md, session 33).

/// A partition's source key hashes, sorted, and the filter over them.
pub struct SourceProbe {
    sorted: Vec<u64>,
    filter: Vec<u64>,
    mask: u64,
}

impl SourceProbe {
    /// The probe of the hashes in `bytes` (8 little-endian bytes a hash); None when its length is not a
    /// multiple of 8.
    pub fn from_le_bytes(bytes: &[u8]) -> Option<SourceProbe> {
        if !bytes.len().is_multiple_of(8) {
            return None;
        }
        let mut sorted: Vec<u64> =
            bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        sorted.sort_unstable();
        sorted.dedup();
        let slots = (16 * sorted.len()).max(1024).next_power_of_two();
        let mut filter = vec![0u64; slots / 64];
        let mask = slots as u64 - 1;
        for &hash in &sorted {
            let slot = (hash >> 32) & mask;
            filter[(slot >> 6) as usize] |= 1 << (slot & 63);
        }
        Some(SourceProbe { sorted, filter, mask })
    }

    /// True when `hash` is one of the source's.
    fn holds(&self, hash: u64) -> bool {
        let slot = (hash >> 32) & self.mask;
        self.filter[(slot >> 6) as usize] & (1 << (slot & 63)) != 0 && self.sorted.binary_search(&hash).is_ok()
    }

    /// True when a row of `hashes` (8 little-endian bytes a row) whose `nulls` flag is not 1 (every row when
    /// there are no flags) has a source key's hash.
    pub fn may_hit(&self, hashes: &[u8], nulls: Option<&[u8]>) -> bool {
        hashes.chunks_exact(8).enumerate().any(|(row, bytes)| self.row_holds(row, bytes, nulls))
    }

    /// The rows `may_hit` asks about that have a source key's hash, ascending: every row that may hold a source
    /// key (a hash collision adds a row, never drops one), so an exact match need look at these alone.
    pub fn hit_rows(&self, hashes: &[u8], nulls: Option<&[u8]>) -> Vec<u32> {
        hashes
            .chunks_exact(8)
            .enumerate()
            .filter(|(row, bytes)| self.row_holds(*row, bytes, nulls))
            .map(|(row, _)| row as u32)
            .collect()
    }

    fn row_holds(&self, row: usize, bytes: &[u8], nulls: Option<&[u8]>) -> bool {
        nulls.is_none_or(|flags| flags.get(row) != Some(&1))
            && self.holds(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::SourceProbe;

    fn le(hashes: &[u64]) -> Vec<u8> {
        hashes.iter().flat_map(|h| h.to_le_bytes()).collect()
    }

    #[test]
    fn answers_whether_a_non_null_row_has_a_source_hash() {
        let probe = SourceProbe::from_le_bytes(&le(&[7, u64::MAX, 1 << 40, 7])).expect("whole hashes");
        assert!(probe.may_hit(&le(&[3, 1 << 40]), None));
        assert!(!probe.may_hit(&le(&[3, 8, (1 << 40) + 1]), None));
        // A NULL row's hash never counts, whatever it is.
        assert!(!probe.may_hit(&le(&[7, 5]), Some(&[1, 0])));
        assert!(probe.may_hit(&le(&[7, u64::MAX]), Some(&[1, 0])));
        assert!(!SourceProbe::from_le_bytes(&[]).expect("empty").may_hit(&le(&[0, 7]), None));
        assert!(SourceProbe::from_le_bytes(&[1, 2, 3]).is_none());
    }

    #[test]
    fn names_the_non_null_rows_with_a_source_hash() {
        let probe = SourceProbe::from_le_bytes(&le(&[7, u64::MAX, 1 << 40])).expect("whole hashes");
        let rows = le(&[7, 3, 1 << 40, 7, u64::MAX, 8]);
        assert_eq!(probe.hit_rows(&rows, None), vec![0, 2, 3, 4]);
        assert_eq!(probe.hit_rows(&rows, Some(&[1, 0, 0, 1, 0, 0])), vec![2, 4]);
        assert!(probe.hit_rows(&le(&[3, 8]), None).is_empty());
    }
}
