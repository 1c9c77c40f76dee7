//! cuprum's own CUDA headers, passed to NVRTC in memory (no toolkit headers needed at run
//! time). Kept small: header parsing dominates compile time. Their text is part of every
//! cache key.

/// `(include name, text)` of every bundled header.
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "cuprum/half.cuh",
        include_str!("../../include/cuprum/half.cuh"),
    ),
    (
        "cuprum/complex.cuh",
        include_str!("../../include/cuprum/complex.cuh"),
    ),
    (
        "cuprum/indexer.cuh",
        include_str!("../../include/cuprum/indexer.cuh"),
    ),
    (
        "cuprum/cast.cuh",
        include_str!("../../include/cuprum/cast.cuh"),
    ),
    (
        "cuprum/reduce.cuh",
        include_str!("../../include/cuprum/reduce.cuh"),
    ),
    (
        "cuprum/jit.cuh",
        include_str!("../../include/cuprum/jit.cuh"),
    ),
    (
        "cuprum/all.cuh",
        include_str!("../../include/cuprum/all.cuh"),
    ),
];
