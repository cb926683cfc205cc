//! Hostile input: deep nesting never overflows the stack, huge counts never allocate and fail
//! where the data runs out, negative lengths are reported where they are.

use crate::common;

// The binary's counting allocator: hostile counts allocate nothing.
use common::alloc::{count_allocs, measure};
use common::unhex_spaced as bytes;
use common::walk::{lazy_accept, walker_accept};
use gdvariant::{types::ENGINE_MAX_DEPTH, types::MAX_DEPTH_LIMIT, Dialect, ErrorKind, ReadOptions};

// ----- helpers -----

const G4: ReadOptions = ReadOptions::new();
const G3: ReadOptions = ReadOptions::godot3();

fn array_id(d: Dialect) -> u32 {
    match d {
        Dialect::Godot4 => 28,
        Dialect::Godot3 => 19,
    }
}

/// `levels` nested one-element arrays around `inner` (the innermost value).
fn nested_arrays(dialect: Dialect, levels: usize, inner: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(levels * 8 + inner.len());
    for _ in 0..levels {
        b.extend_from_slice(&array_id(dialect).to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
    }
    b.extend_from_slice(inner);
    b
}

/// `levels` nested arrays in all, the innermost empty.
fn nested_levels(dialect: Dialect, levels: usize) -> Vec<u8> {
    let mut empty = array_id(dialect).to_le_bytes().to_vec();
    empty.extend_from_slice(&0u32.to_le_bytes());
    nested_arrays(dialect, levels - 1, &empty)
}

fn depth_error(limit: u32, offset: usize) -> (ErrorKind, usize) {
    (ErrorKind::DepthExceeded { limit }, offset)
}

fn kind_at(e: gdvariant::Error) -> (ErrorKind, usize) {
    (e.kind(), e.offset())
}

/// Runs `f` on a thread with a stack of `kib` KiB.
fn on_stack<R: Send>(kib: usize, f: impl FnOnce() -> R + Send) -> R {
    common::on_stack(kib << 10, f)
}

// ----- depth -----

fn million_nested(dialect: Dialect) {
    let b = nested_arrays(dialect, 1_000_000, &[0, 0, 0, 0]);
    assert_eq!(b.len(), 8_000_004);
    let opts = ReadOptions::new().with_dialect(dialect);
    // The array at depth 1025 is the first too deep; its header is at 1025 * 8.
    let want = depth_error(ENGINE_MAX_DEPTH, 1025 * 8);
    let b = std::sync::Arc::new(b);
    let shared = b.clone();
    let (v, p, raw, walker) = on_stack(256, move || {
        let b = &shared[..];
        let v = gdvariant::validate_with(b, &opts).map_err(kind_at);
        let p = gdvariant::parse_prefix_with(b, &opts)
            .map(|x| x.1)
            .map_err(kind_at);
        let raw = gdvariant::parse_with(b, &opts)
            .unwrap()
            .raw()
            .map(<[u8]>::len)
            .map_err(kind_at);
        let walker = walker_accept(b, &opts).map(|x| x.1).map_err(kind_at);
        (v, p, raw, walker)
    });
    assert_eq!(v, Err(want));
    assert_eq!(p, Err(want));
    assert_eq!(raw, Err(want));
    assert_eq!(walker, Err(want));
    // The test's lazy walk recurses natively once per level (its frames, not the library's):
    // the lazy iterators yield container children unsized, so it descends all 1025 levels.
    let shared = b.clone();
    let walk = on_stack(65536, move || lazy_accept(&shared, &opts).map_err(kind_at));
    assert_eq!(walk, Err(want));
    // The largest limit the options accept: still bounded stack use (the walk continues in a
    // nested call every 64 levels, about 2 KiB of stack each in a debug build).
    let max = opts.with_max_depth(u32::MAX);
    let shared = b.clone();
    let big = on_stack(1024, move || {
        gdvariant::validate_with(&shared, &max).map_err(kind_at)
    });
    assert_eq!(
        big,
        Err(depth_error(
            MAX_DEPTH_LIMIT,
            (MAX_DEPTH_LIMIT as usize + 1) * 8
        ))
    );
    // Nothing allocated on the way: the one allocation is the error's box.
    let (r, allocs) = count_allocs(|| gdvariant::validate_with(&b, &opts));
    assert!(r.is_err());
    assert_eq!(allocs, 1);
}

#[test]
fn a_million_nested_arrays_godot4() {
    million_nested(Dialect::Godot4);
}

#[test]
fn a_million_nested_arrays_godot3() {
    million_nested(Dialect::Godot3);
}

#[test]
fn engine_depth_limit_is_1025_levels() {
    for dialect in [Dialect::Godot4, Dialect::Godot3] {
        let opts = ReadOptions::new().with_dialect(dialect);
        let ok = nested_levels(dialect, 1025);
        let len = ok.len();
        assert_eq!(len, 8200);
        let shared = std::sync::Arc::new(ok.clone());
        assert_eq!(
            on_stack(256, move || gdvariant::validate_with(&shared, &opts)),
            Ok(len)
        );
        // The test's full lazy walk recurses natively once per level (several KiB per level in
        // a debug build); the library's own walks do not.
        let shared = std::sync::Arc::new(ok.clone());
        assert_eq!(
            on_stack(65536, move || lazy_accept(&shared, &opts)),
            Ok(len)
        );
        assert_eq!(
            gdvariant::parse_prefix_with(&ok, &opts).unwrap().1,
            ok.len(),
            "{dialect}"
        );
        // Down to the innermost array through the lazy API: depth 1024.
        let mut v = gdvariant::parse_with(&ok, &opts).unwrap();
        for _ in 0..1024 {
            v = v.as_array().unwrap().get(0).unwrap().unwrap();
        }
        assert_eq!(v.depth(), 1024);
        assert!(v.as_array().unwrap().is_empty());

        let bad = nested_levels(dialect, 1026);
        let want = Err(depth_error(ENGINE_MAX_DEPTH, 1025 * 8));
        assert_eq!(gdvariant::validate_with(&bad, &opts).map_err(kind_at), want);
        let shared = std::sync::Arc::new(bad.clone());
        assert_eq!(
            on_stack(65536, move || lazy_accept(&shared, &opts).map_err(kind_at)),
            want
        );
        // A scalar at depth 1025 is too deep as well, as in the engine.
        let scalar = nested_arrays(dialect, 1025, &[0, 0, 0, 0]);
        assert_eq!(
            gdvariant::validate_with(&scalar, &opts).map_err(kind_at),
            want
        );
    }
}

#[test]
fn nested_dictionaries_count_keys_and_values_one_deeper() {
    // {nil: {nil: ... {}}}: 1025 dictionaries decode (the innermost empty), 1026 do not.
    let level = bytes("1b000000 01000000 00000000");
    let empty = bytes("1b000000 00000000");
    let build = |n: usize| {
        let mut b = level.repeat(n - 1);
        b.extend_from_slice(&empty);
        b
    };
    let ok = build(1025);
    assert_eq!(gdvariant::validate(&ok), Ok(ok.len()));
    let shared = std::sync::Arc::new(ok.clone());
    assert_eq!(
        on_stack(65536, move || lazy_accept(&shared, &G4)),
        Ok(ok.len())
    );
    let bad = build(1026);
    // The dictionary at depth 1024 (offset 1024 * 12) is fine, its Nil key at depth 1025 is not.
    let want = Err(depth_error(ENGINE_MAX_DEPTH, 1024 * 12 + 8));
    assert_eq!(gdvariant::validate(&bad).map_err(kind_at), want);
    let shared = std::sync::Arc::new(bad.clone());
    assert_eq!(
        on_stack(65536, move || lazy_accept(&shared, &G4).map_err(kind_at)),
        want
    );
}

#[test]
fn a_lower_depth_limit_works() {
    let opts = ReadOptions::new().with_max_depth(3);
    assert_eq!(opts.max_depth(), 3);
    let ok = nested_levels(Dialect::Godot4, 4);
    assert_eq!(gdvariant::validate_with(&ok, &opts), Ok(32));
    assert_eq!(lazy_accept(&ok, &opts), Ok(32));
    let bad = nested_levels(Dialect::Godot4, 5);
    let want = Err(depth_error(3, 32));
    assert_eq!(gdvariant::validate_with(&bad, &opts).map_err(kind_at), want);
    assert_eq!(lazy_accept(&bad, &opts).map_err(kind_at), want);
    let root = gdvariant::parse_with(&bad, &opts).unwrap();
    assert_eq!(root.raw().map(<[u8]>::len).map_err(kind_at), want);
    // The default accepts it.
    assert_eq!(gdvariant::validate(&bad), Ok(40));

    // Depth 0: only the top-level value; its elements are too deep.
    let zero = ReadOptions::new().with_max_depth(0);
    assert_eq!(
        gdvariant::validate_with(&bytes("1c000000 00000000"), &zero),
        Ok(8)
    );
    assert_eq!(
        gdvariant::validate_with(&bytes("02000000 01000000"), &zero),
        Ok(8)
    );
    assert_eq!(
        gdvariant::validate_with(&bytes("1c000000 01000000 00000000"), &zero).map_err(kind_at),
        Err(depth_error(0, 8))
    );
    // Object properties are one deeper too.
    let obj = bytes("18000000 04000000 4e6f6465 01000000 01000000 78000000 00000000");
    let o1 = ReadOptions::new().with_full_objects(true).with_max_depth(1);
    assert_eq!(gdvariant::validate_with(&obj, &o1), Ok(obj.len()));
    let o0 = o1.with_max_depth(0);
    assert_eq!(
        gdvariant::validate_with(&obj, &o0).map_err(kind_at),
        Err(depth_error(0, 24))
    );
    // Limits above the maximum are clamped.
    assert_eq!(
        ReadOptions::new().with_max_depth(u32::MAX).max_depth(),
        MAX_DEPTH_LIMIT
    );
}

#[test]
fn deep_nesting_with_a_higher_limit_uses_bounded_stack() {
    let opts = ReadOptions::new().with_max_depth(MAX_DEPTH_LIMIT);
    let ok = nested_levels(Dialect::Godot4, MAX_DEPTH_LIMIT as usize + 1);
    let len = ok.len();
    let ok = std::sync::Arc::new(ok);
    let shared = ok.clone();
    let (v, p) = on_stack(1024, move || {
        (
            gdvariant::validate_with(&shared, &opts),
            gdvariant::parse_prefix_with(&shared, &opts).map(|x| x.1),
        )
    });
    assert_eq!(v, Ok(len));
    assert_eq!(p, Ok(len));
}

// ----- huge counts -----

/// Hostile inputs, the error kind and offset expected, and the options.
fn hostile_cases() -> Vec<(&'static str, ReadOptions, Vec<u8>, ErrorKind, usize)> {
    use ErrorKind as K;
    let eof = |needed| K::UnexpectedEof { needed };
    let o = ReadOptions::new().with_full_objects(true);
    vec![
        (
            "array_count_max",
            G4,
            bytes("1c000000 ffffff7f 02000000 01000000"),
            eof(4),
            16,
        ),
        (
            "array_count_max_empty",
            G4,
            bytes("1c000000 ffffff7f"),
            eof(4),
            8,
        ),
        (
            "g3_array_count_max",
            G3,
            bytes("13000000 ffffffff 00000000"),
            eof(4),
            12,
        ),
        (
            "dict_count_max",
            G4,
            bytes("1b000000 ffffff7f 00000000"),
            eof(4),
            12,
        ),
        (
            "g3_dict_count_max",
            G3,
            bytes("12000000 ffffff7f"),
            eof(4),
            8,
        ),
        (
            "pstr_count_max",
            G4,
            bytes("22000000 ffffff7f 01000000 61000000"),
            eof(4),
            16,
        ),
        (
            "nodepath_names_max",
            G4,
            bytes("16000000 ffffffff 00000000 00000000 01000000 61000000"),
            eof(4),
            24,
        ),
        (
            "nodepath_subnames_max",
            G4,
            bytes("16000000 00000080 ffffffff 00000000"),
            eof(4),
            16,
        ),
        (
            "object_props_max",
            o,
            bytes("18000000 04000000 4e6f6465 ffffff7f"),
            eof(4),
            16,
        ),
        (
            "string_len_max",
            G4,
            bytes("04000000 ffffff7f 61626364"),
            eof(0x7FFF_FFFC),
            8,
        ),
        (
            "class_name_len_max",
            G4,
            bytes("1c000200 ffffff7f"),
            eof(0x8000_0000),
            8,
        ),
        (
            "pba_count_max",
            G4,
            bytes("1d000000 ffffff7f 01020304"),
            eof(0x7FFF_FFFB),
            8,
        ),
        (
            "pi32_count_max",
            G4,
            bytes("1e000000 ffffff7f"),
            K::LengthOverflow,
            8,
        ),
        (
            "pi32_largest_size",
            G4,
            bytes("1e000000 ffffff1f 00000000"),
            eof(0x7FFF_FFF8),
            8,
        ),
        (
            "pf32_count_max",
            G4,
            bytes("20000000 ffffff7f"),
            K::LengthOverflow,
            8,
        ),
        (
            "pi64_overflow",
            G4,
            bytes("1f000000 00000010"),
            K::LengthOverflow,
            8,
        ),
        (
            "pi64_largest_size",
            G4,
            bytes("1f000000 ffffff0f"),
            eof(0x7FFF_FFF8),
            8,
        ),
        (
            "pf64_overflow",
            G4,
            bytes("21000000 00000010"),
            K::LengthOverflow,
            8,
        ),
        (
            "pv2_overflow",
            G4,
            bytes("23000000 00000010"),
            K::LengthOverflow,
            8,
        ),
        (
            "pv2_f64_overflow",
            G4,
            bytes("23000100 00000008"),
            K::LengthOverflow,
            8,
        ),
        (
            "pv3_overflow",
            G4,
            bytes("24000000 abaaaa0a"),
            K::LengthOverflow,
            8,
        ),
        (
            "pv3_f64_overflow",
            G4,
            bytes("24000100 56555505"),
            K::LengthOverflow,
            8,
        ),
        (
            "pcolor_overflow",
            G4,
            bytes("25000000 00000008"),
            K::LengthOverflow,
            8,
        ),
        (
            "pv4_overflow",
            G4,
            bytes("26000000 00000008"),
            K::LengthOverflow,
            8,
        ),
        (
            "pv4_f64_overflow",
            G4,
            bytes("26000100 00000004"),
            K::LengthOverflow,
            8,
        ),
        (
            "g3_pool_int_overflow",
            G3,
            bytes("15000000 ffffff7f"),
            K::LengthOverflow,
            8,
        ),
        (
            "g3_pool_vector3_overflow",
            G3,
            bytes("19000000 abaaaa0a"),
            K::LengthOverflow,
            8,
        ),
        (
            "g3_pool_color_overflow",
            G3,
            bytes("1a000000 00000008"),
            K::LengthOverflow,
            8,
        ),
        // Negative lengths, reported at the length field.
        (
            "string_negative",
            G4,
            bytes("04000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "string_min",
            G4,
            bytes("04000000 00000080"),
            K::NegativeLength { value: i32::MIN },
            4,
        ),
        (
            "pba_negative",
            G4,
            bytes("1d000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pi32_negative",
            G4,
            bytes("1e000000 f6ffffff"),
            K::NegativeLength { value: -10 },
            4,
        ),
        (
            "pi64_negative",
            G4,
            bytes("1f000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pf32_negative",
            G4,
            bytes("20000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pf64_negative",
            G4,
            bytes("21000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pv2_negative",
            G4,
            bytes("23000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pv3_negative",
            G4,
            bytes("24000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pcolor_negative",
            G4,
            bytes("25000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pv4_negative",
            G4,
            bytes("26000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "g3_pool_byte_negative",
            G3,
            bytes("14000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "pstr_entry_negative",
            G4,
            bytes("22000000 02000000 01000000 61000000 ffffffff"),
            K::NegativeLength { value: -1 },
            16,
        ),
        (
            "dict_key_negative",
            G4,
            bytes("1b000000 01000000 04000000 feffffff"),
            K::NegativeLength { value: -2 },
            12,
        ),
        (
            "nodepath_name_negative",
            G4,
            bytes("16000000 01000080 00000000 00000000 ffffffff"),
            K::NegativeLength { value: -1 },
            16,
        ),
        (
            "class_name_negative",
            o,
            bytes("18000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
        (
            "prop_name_negative",
            o,
            bytes("18000000 01000000 41000000 01000000 ffffffff"),
            K::NegativeLength { value: -1 },
            16,
        ),
        (
            "signal_name_negative",
            G4,
            bytes("1a000000 ffffffff"),
            K::NegativeLength { value: -1 },
            4,
        ),
    ]
}

#[test]
fn huge_counts_fail_where_the_data_ends_without_allocating() {
    let cases = hostile_cases();
    for (name, opts, b, kind, offset) in &cases {
        let ((v, p, walk), allocs) = count_allocs(|| {
            (
                gdvariant::validate_with(b, opts).map_err(kind_at),
                gdvariant::parse_prefix_with(b, opts)
                    .map(|x| x.1)
                    .map_err(kind_at),
                lazy_accept(b, opts).map_err(kind_at),
            )
        });
        // One allocation per error (its box), nothing in proportion to the counts read.
        assert_eq!(allocs, 3, "{name}: allocated");
        assert_eq!(v, Err((*kind, *offset)), "{name}: validate");
        assert_eq!(p, Err((*kind, *offset)), "{name}: parse_prefix");
        assert_eq!(walk, Err((*kind, *offset)), "{name}: lazy walk");
    }
}

#[test]
fn to_owned_reserves_no_more_than_the_input_can_hold() {
    // 1000 nested arrays each claiming 2^31 - 1 elements, then 64 KiB of Nils: every level
    // could hold ~16k elements of the rest of the input, but the reservations of all the open
    // containers together must stay within what the whole input can hold. Each 4-byte Nil
    // becomes a 40-byte Variant and vectors grow by doubling: a few tens of bytes per input
    // byte (reserving ~16k elements at every level would be ~10 000).
    let mut b = Vec::new();
    for _ in 0..1000 {
        b.extend_from_slice(&28u32.to_le_bytes());
        b.extend_from_slice(&0x7FFF_FFFFu32.to_le_bytes());
    }
    b.resize(b.len() + (64 << 10), 0);
    let (r, usage) = measure(|| gdvariant::parse(&b).unwrap().to_owned());
    let allocated = usage.bytes as usize;
    assert_eq!(
        kind_at(r.unwrap_err()),
        (ErrorKind::UnexpectedEof { needed: 4 }, b.len())
    );
    let per_input_byte = allocated / b.len();
    assert!(
        per_input_byte <= 64,
        "{allocated} bytes allocated for {} of input",
        b.len()
    );
}

#[test]
fn huge_counts_stay_lazy_until_walked() {
    // The count is only a number until the elements are read.
    let b = bytes("1c000000 ffffff7f 02000000 01000000");
    let v = gdvariant::parse(&b).unwrap();
    let a = v.as_array().unwrap();
    assert_eq!(a.len(), 0x7FFF_FFFF);
    assert_eq!(a.get(0).unwrap().unwrap().as_i64().unwrap(), 1);
    let e = a.get(5).unwrap_err();
    assert_eq!(kind_at(e), (ErrorKind::UnexpectedEof { needed: 4 }, 16));
    let mut it = a.iter();
    assert!(it.next().unwrap().is_ok());
    assert!(it.next().unwrap().is_err());
    assert!(it.next().is_none(), "the iterator ends after an error");
    assert_eq!(
        kind_at(v.raw().unwrap_err()),
        (ErrorKind::UnexpectedEof { needed: 4 }, 16)
    );
    // A packed array's declared size is checked when the view is made.
    assert!(gdvariant::parse(&bytes("1e000000 ffffff7f")).is_err());
}

#[test]
fn nodepath_counts_use_the_engines_u32_arithmetic() {
    // names 1 + subnames 0xFFFFFFFF wraps to 0 strings in the engine's u32 `total`.
    let b = bytes("16000000 01000080 ffffffff 00000000");
    assert_eq!(gdvariant::validate(&b), Ok(16));
    assert_eq!(lazy_accept(&b, &G4), Ok(16));
    let p = gdvariant::parse(&b).unwrap().as_node_path().unwrap();
    assert_eq!((p.name_count(), p.subname_count()), (0, 0));
}
