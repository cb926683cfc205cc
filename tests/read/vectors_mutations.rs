//! Every truncation of every table vector and every engine golden vector is rejected, and
//! single-byte mutations never panic and get the same verdict from `validate` and the full lazy
//! walk.

use crate::common;

// Hex with spaces for readability.
use common::unhex_spaced as bytes;
use common::walk::{lazy_accept, walker_accept};
use gdvariant::{ObjectRef, ReadOptions, VariantRef, VariantType};

use crate::vectors::{vectors, G3, G4};

/// If the value ends with a PackedByteArray, the offset where that array's bytes end (its
/// padding after that is optional when it ends the buffer); else `usize::MAX`.
fn trailing_byte_array_end(v: VariantRef<'_>) -> usize {
    match v.ty() {
        VariantType::PackedByteArray => v.offset() + 8 + v.as_byte_array().unwrap().len(),
        VariantType::Array => v
            .as_array()
            .unwrap()
            .iter()
            .last()
            .map_or(usize::MAX, |e| trailing_byte_array_end(e.unwrap())),
        VariantType::Dictionary => v
            .as_dictionary()
            .unwrap()
            .iter()
            .last()
            .map_or(usize::MAX, |p| trailing_byte_array_end(p.unwrap().1)),
        VariantType::Object => match v.as_object().unwrap() {
            ObjectRef::Full(f) => f
                .properties()
                .last()
                .map_or(usize::MAX, |p| trailing_byte_array_end(p.unwrap().1)),
            ObjectRef::Id(_) => usize::MAX,
        },
        _ => usize::MAX,
    }
}

/// Every prefix shorter than the value is rejected by validate and by the lazy walk, except
/// a cut that drops only the zero padding of a byte array at the very end.
fn check_truncations(name: &str, b: &[u8], opts: &ReadOptions) -> usize {
    let full = gdvariant::validate_with(b, opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    let v = gdvariant::parse_with(b, opts).unwrap();
    let data_end = trailing_byte_array_end(v);
    let mut checked = 0;
    for cut in 0..full {
        let p = &b[..cut];
        let val = gdvariant::validate_with(p, opts);
        let lazy = lazy_accept(p, opts);
        let prefix = gdvariant::parse_prefix_with(p, opts).map(|(_, n)| n);
        if cut >= data_end {
            assert_eq!(val, Ok(cut), "{name}: cut {cut}: byte-array pad");
            assert_eq!(lazy, Ok(cut), "{name}: cut {cut}: byte-array pad (lazy)");
            continue;
        }
        let e = val.expect_err(&format!("{name}: validate accepted cut {cut}"));
        assert!(e.offset() <= cut, "{name}: cut {cut}: error offset {e}");
        assert!(lazy.is_err(), "{name}: lazy walk accepted cut {cut}");
        assert!(prefix.is_err(), "{name}: parse_prefix accepted cut {cut}");
        checked += 1;
    }
    checked
}

/// Single-byte changes never panic, and validate and the full lazy walk agree on accept or
/// reject (and on the length when both accept). Returns the number of mutations tried.
fn check_mutations(name: &str, b: &[u8], opts: &ReadOptions, problems: &mut Vec<String>) -> usize {
    let mut n = 0;
    let mut m = b.to_vec();
    for i in 0..b.len() {
        let orig = b[i];
        let mut seen = [false; 256];
        for new in [orig ^ 0x01, orig ^ 0x80, orig ^ 0xFF, 0x00, 0xFF] {
            if new == orig || std::mem::replace(&mut seen[new as usize], true) {
                continue;
            }
            m[i] = new;
            for o in [*opts, opts.with_full_objects(!opts.full_objects())] {
                let val = gdvariant::validate_with(&m, &o);
                let lazy = lazy_accept(&m, &o);
                let walker = walker_accept(&m, &o).map(|(_, len)| len);
                let agree = match (&val, &lazy) {
                    (Ok(a), Ok(b)) => a == b,
                    (Err(_), Err(_)) => true,
                    _ => false,
                };
                // The pull-event walk gives exactly validate's answer, errors included.
                if !agree || walker != val {
                    problems.push(format!(
                        "{name}: byte {i} {orig:02x}->{new:02x} objects={}: validate {val:?}, lazy {lazy:?}, walker {walker:?}",
                        o.full_objects()
                    ));
                }
                n += 1;
            }
        }
        m[i] = orig;
    }
    n
}

fn golden() -> Vec<(String, Vec<u8>, ReadOptions)> {
    let mut out = Vec::new();
    for (engine, base) in [("godot4", G4), ("godot3", G3)] {
        let (_, cases) = common::encode_cases(engine);
        for c in cases {
            out.push((
                format!("{engine}/{}", c.name),
                c.bytes,
                base.with_full_objects(c.objects),
            ));
        }
    }
    out
}

#[test]
fn truncated_table_vectors_are_rejected() {
    let mut checked = 0;
    for t in vectors() {
        checked += check_truncations(t.name, &bytes(t.hex), &t.opts);
    }
    assert!(checked > 2000, "{checked}");
}

#[test]
#[cfg_attr(miri, ignore = "reads files; slow")]
fn truncated_golden_vectors_are_rejected() {
    let mut checked = 0;
    let cases = golden();
    assert!(cases.len() > 400);
    for (name, b, opts) in &cases {
        checked += check_truncations(name, b, opts);
    }
    assert!(checked > 15_000, "{checked}");
}

#[test]
#[cfg_attr(miri, ignore = "slow under Miri")]
fn mutated_table_vectors_agree() {
    let mut problems = Vec::new();
    let mut n = 0;
    for t in vectors() {
        n += check_mutations(t.name, &bytes(t.hex), &t.opts, &mut problems);
    }
    assert!(n > 20_000, "{n}");
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
#[cfg_attr(miri, ignore = "reads files; slow")]
fn mutated_golden_vectors_agree() {
    let mut problems = Vec::new();
    let mut n = 0;
    for (name, b, opts) in &golden() {
        n += check_mutations(name, b, opts, &mut problems);
    }
    assert!(n > 100_000, "{n}");
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
