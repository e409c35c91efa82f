;; XXH64 (xxHash, 64-bit, 64-bit seed) over many keys per call: the wasm half of xxh64-wasm.ts.
;; Key bytes, offsets and outputs live in this module's memory; each export hashes every key of a batch
;; and stores hash i as a little-endian i64 at out + 8i.
(module
  (memory (export "memory") 1)
  (global $P1 i64 (i64.const 0x9E3779B185EBCA87))
  (global $P2 i64 (i64.const 0xC2B2AE3D27D4EB4F))
  (global $P3 i64 (i64.const 0x165667B19E3779F9))
  (global $P4 i64 (i64.const 0x85EBCA77C2B2AE63))
  (global $P5 i64 (i64.const 0x27D4EB2F165667C5))

  ;; acc + lane * P2, rotated left 31, times P1
  (func $round (param $acc i64) (param $lane i64) (result i64)
    (i64.mul
      (i64.rotl (i64.add (local.get $acc) (i64.mul (local.get $lane) (global.get $P2))) (i64.const 31))
      (global.get $P1)))

  ;; (h ^ round(0, v)) * P1 + P4
  (func $merge (param $h i64) (param $v i64) (result i64)
    (i64.add
      (i64.mul (i64.xor (local.get $h) (call $round (i64.const 0) (local.get $v))) (global.get $P1))
      (global.get $P4)))

  ;; XXH64 of memory[p, p + len) with the seed
  (func $hash (param $p i32) (param $len i32) (param $seed i64) (result i64)
    (local $end i32) (local $limit i32) (local $h i64)
    (local $v1 i64) (local $v2 i64) (local $v3 i64) (local $v4 i64)
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (if (i32.ge_u (local.get $len) (i32.const 32))
      (then
        (local.set $limit (i32.sub (local.get $end) (i32.const 32)))
        (local.set $v1 (i64.add (local.get $seed) (i64.add (global.get $P1) (global.get $P2))))
        (local.set $v2 (i64.add (local.get $seed) (global.get $P2)))
        (local.set $v3 (local.get $seed))
        (local.set $v4 (i64.sub (local.get $seed) (global.get $P1)))
        (loop $stripes
          (local.set $v1 (call $round (local.get $v1) (i64.load offset=0 align=1 (local.get $p))))
          (local.set $v2 (call $round (local.get $v2) (i64.load offset=8 align=1 (local.get $p))))
          (local.set $v3 (call $round (local.get $v3) (i64.load offset=16 align=1 (local.get $p))))
          (local.set $v4 (call $round (local.get $v4) (i64.load offset=24 align=1 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 32)))
          (br_if $stripes (i32.le_u (local.get $p) (local.get $limit))))
        (local.set $h
          (i64.add
            (i64.add (i64.rotl (local.get $v1) (i64.const 1)) (i64.rotl (local.get $v2) (i64.const 7)))
            (i64.add (i64.rotl (local.get $v3) (i64.const 12)) (i64.rotl (local.get $v4) (i64.const 18)))))
        (local.set $h (call $merge (local.get $h) (local.get $v1)))
        (local.set $h (call $merge (local.get $h) (local.get $v2)))
        (local.set $h (call $merge (local.get $h) (local.get $v3)))
        (local.set $h (call $merge (local.get $h) (local.get $v4))))
      (else (local.set $h (i64.add (local.get $seed) (global.get $P5)))))
    (local.set $h (i64.add (local.get $h) (i64.extend_i32_u (local.get $len))))
    (block $done8
      (loop $lanes8
        (br_if $done8 (i32.gt_u (i32.add (local.get $p) (i32.const 8)) (local.get $end)))
        (local.set $h
          (i64.add
            (i64.mul
              (i64.rotl
                (i64.xor (local.get $h) (call $round (i64.const 0) (i64.load align=1 (local.get $p))))
                (i64.const 27))
              (global.get $P1))
            (global.get $P4)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $lanes8)))
    (if (i32.le_u (i32.add (local.get $p) (i32.const 4)) (local.get $end))
      (then
        (local.set $h
          (i64.add
            (i64.mul
              (i64.rotl
                (i64.xor (local.get $h)
                  (i64.mul (i64.load32_u align=1 (local.get $p)) (global.get $P1)))
                (i64.const 23))
              (global.get $P2))
            (global.get $P3)))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))))
    (block $done1
      (loop $bytes1
        (br_if $done1 (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $h
          (i64.mul
            (i64.rotl
              (i64.xor (local.get $h) (i64.mul (i64.load8_u (local.get $p)) (global.get $P5)))
              (i64.const 11))
            (global.get $P1)))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $bytes1)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))) (global.get $P2)))
    (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))) (global.get $P3)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  (func $seed (param $lo i32) (param $hi i32) (result i64)
    (i64.or (i64.shl (i64.extend_i32_u (local.get $hi)) (i64.const 32)) (i64.extend_i32_u (local.get $lo))))

  ;; key k is bytes + offsets[k] - base .. bytes + offsets[k + 1] - base (offsets: i32 at offsets + 4k)
  (func (export "ranges")
    (param $bytes i32) (param $base i32) (param $offsets i32) (param $count i32) (param $out i32)
    (param $seedLo i32) (param $seedHi i32)
    (local $seed i64) (local $start i32) (local $next i32) (local $stop i32)
    (local.set $seed (call $seed (local.get $seedLo) (local.get $seedHi)))
    (local.set $bytes (i32.sub (local.get $bytes) (local.get $base)))
    (local.set $stop (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))))
    (local.set $start (i32.load (local.get $offsets)))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $out) (local.get $stop)))
        (local.set $offsets (i32.add (local.get $offsets) (i32.const 4)))
        (local.set $next (i32.load (local.get $offsets)))
        (i64.store (local.get $out)
          (call $hash (i32.add (local.get $bytes) (local.get $start))
            (i32.sub (local.get $next) (local.get $start)) (local.get $seed)))
        (local.set $start (local.get $next))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (br $keys))))

  ;; key k is bytes + k * width .. + width
  (func (export "fixed")
    (param $bytes i32) (param $width i32) (param $count i32) (param $out i32)
    (param $seedLo i32) (param $seedHi i32)
    (local $seed i64) (local $stop i32)
    (local.set $seed (call $seed (local.get $seedLo) (local.get $seedHi)))
    (local.set $stop (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $out) (local.get $stop)))
        (i64.store (local.get $out) (call $hash (local.get $bytes) (local.get $width) (local.get $seed)))
        (local.set $bytes (i32.add (local.get $bytes) (local.get $width)))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (br $keys))))

  ;; 8-byte keys at words + 8k, hashed in place: out may equal words
  (func (export "words8")
    (param $words i32) (param $count i32) (param $out i32) (param $seedLo i32) (param $seedHi i32)
    (local $start i64) (local $stop i32) (local $h i64)
    (local.set $start
      (i64.add (call $seed (local.get $seedLo) (local.get $seedHi)) (i64.add (global.get $P5) (i64.const 8))))
    (local.set $stop (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))))
    (block $done
      (loop $keys
        (br_if $done (i32.ge_u (local.get $out) (local.get $stop)))
        (local.set $h
          (i64.add
            (i64.mul
              (i64.rotl
                (i64.xor (local.get $start) (call $round (i64.const 0) (i64.load (local.get $words))))
                (i64.const 27))
              (global.get $P1))
            (global.get $P4)))
        (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))) (global.get $P2)))
        (local.set $h (i64.mul (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))) (global.get $P3)))
        (i64.store (local.get $out) (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))
        (local.set $words (i32.add (local.get $words) (i32.const 8)))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (br $keys)))))
