//! What the text and JSON readers build from the values they read: an owned [`Variant`](crate::Variant) tree
//! ([`Tree`]) or the encoded bytes straight away ([`Bytes`], no tree), behind one set of checks
//! ([`Builder`]) that refuses everything [`validate_with`](crate::validate_with) would refuse
//! in the bytes: a value nested deeper than the depth limit, a type the dialect does not have,
//! a typed container in Godot 3, a full object when objects are not allowed, an Object without
//! a class name, a Godot 4 `script` property that is neither null nor a `res://` path, and a
//! script-typed container whose path is not `res://` when objects are allowed.
//!
//! The readers are iterative: they call the builder once per value, container start, property
//! name and container end, so nesting costs heap memory (a few bytes a level), never native
//! stack.
//!
//! Dictionaries read from text or from a plain JSON object *merge* repeated keys as the engine's
//! `str_to_var` does: the first key and its position, the last value. Which keys are the same
//! key is decided by the crate's one key identity (`owned::key`, through an owned
//! [`Dictionary`](crate::Dictionary)) under the rule the reader gives ([`Open::Dict`]): the text's dialect, Godot 4
//! for JSON. Lookups are hashed (every key type, containers included), so reading `n` entries
//! costs O(n) expected whatever the key type.
//!
//! [`Bytes`] writes every value as soon as it is complete and never builds the tree: memory is
//! the output plus, for each open dictionary that merges keys, its keys (owned, in a
//! [`Dictionary`](crate::Dictionary) that finds repeats) and a small record per entry (keys that are containers
//! are built as small trees first, to be compared). A repeated key does not
//! move bytes: the dictionary is recorded as a *reordering* of byte ranges, and the final output
//! is produced in one pass that follows these records (nested ones included), so the work stays
//! linear in the input whatever the nesting. The same mechanism inserts the type info of a JSON
//! typed container, which the JSON form gives after the elements.
//!
//! The files, each using only those listed before it: `sink` (the events and [`Fail`]),
//! `checks` ([`Builder`], the checks), `tree` and `bytes` (the two sinks).

mod bytes;
mod checks;
mod sink;
mod tree;

pub(crate) use bytes::{exactly_one, Bytes};
pub(crate) use checks::Builder;
pub(crate) use sink::{fail, Fail, Open, Sink};
pub(crate) use tree::Tree;

#[cfg(test)]
mod tests {
    use super::checks::SCRIPT_RULE;
    use super::sink::R;
    use super::*;
    use crate::encode::EncodeOptions;
    use crate::owned::{Array, TypeInfo, Variant};
    use crate::types::{Dialect, ReadOptions};

    fn bytes_of(events: impl FnOnce(&mut Builder<Bytes>) -> R) -> Vec<u8> {
        let opts = EncodeOptions::new().with_full_objects(true);
        let read = ReadOptions::new().with_full_objects(true);
        let mut b = Builder::new(Bytes::new(opts), read);
        events(&mut b).unwrap();
        assert!(b.sink.is_complete());
        b.sink.take_value()
    }

    fn tree_of(events: impl FnOnce(&mut Builder<Tree>) -> R) -> Variant {
        let read = ReadOptions::new().with_full_objects(true);
        let mut b = Builder::new(Tree::default(), read);
        events(&mut b).unwrap();
        b.sink.take().unwrap()
    }

    fn dict_events<S: Sink>(b: &mut Builder<S>) -> R {
        b.begin(
            Open::Dict {
                key: TypeInfo::None,
                value: TypeInfo::None,
                merge: Some(Dialect::Godot4),
            },
            0,
        )?;
        b.leaf("a".into(), 1)?;
        b.leaf(1.into(), 2)?;
        b.begin(Open::Array(TypeInfo::None), 3)?;
        b.leaf(1.into(), 4)?;
        b.end(5)?;
        b.begin(
            Open::Dict {
                key: TypeInfo::None,
                value: TypeInfo::None,
                merge: Some(Dialect::Godot4),
            },
            6,
        )?;
        b.leaf("x".into(), 7)?;
        b.leaf(1.into(), 8)?;
        b.leaf("x".into(), 9)?;
        b.leaf(2.into(), 10)?;
        b.end(11)?;
        b.leaf("a".into(), 12)?;
        b.begin(Open::Array(TypeInfo::None), 13)?;
        b.leaf(3.into(), 14)?;
        b.end(15)?;
        b.begin(Open::Array(TypeInfo::None), 16)?;
        b.leaf(1.into(), 17)?;
        b.end(18)?;
        b.leaf(9.into(), 19)?;
        b.end(20)
    }

    #[test]
    fn repeated_keys_merge_alike_in_trees_and_bytes() {
        let tree = tree_of(dict_events);
        let d = tree.as_dictionary().unwrap();
        assert_eq!(d.entries.len(), 2);
        assert_eq!(d.entries[0].1, Variant::from(vec![Variant::Int(3)]));
        assert_eq!(d.entries[1].1, Variant::Int(9));
        assert_eq!(d.entries[1].0, Variant::from(vec![Variant::Int(1)]));
        let bytes = bytes_of(dict_events);
        let enc = crate::encode::encode_with(&tree, &EncodeOptions::new().with_full_objects(true));
        assert_eq!(bytes, enc.unwrap());
    }

    #[test]
    fn type_info_given_late_is_inserted() {
        let events = |b: &mut Builder<Bytes>| -> R {
            b.begin(Open::Array(TypeInfo::None), 0)?;
            b.begin(Open::Array(TypeInfo::None), 1)?;
            b.leaf(1.into(), 2)?;
            b.set_types(TypeInfo::ClassName("Node".into()), TypeInfo::None, 3)?;
            b.end(4)?;
            b.leaf(2.into(), 5)?;
            b.set_types(
                TypeInfo::Builtin(crate::types::VariantType::Array),
                TypeInfo::None,
                6,
            )?;
            b.end(7)
        };
        let want = Variant::Array(Array::typed(
            TypeInfo::Builtin(crate::types::VariantType::Array),
            vec![
                Variant::Array(Array::typed(
                    TypeInfo::ClassName("Node".into()),
                    vec![1.into()],
                )),
                2.into(),
            ],
        ));
        let enc = crate::encode::encode_with(&want, &EncodeOptions::new().with_full_objects(true));
        assert_eq!(bytes_of(events), enc.unwrap());
    }

    #[test]
    fn the_checks_refuse_what_validate_refuses() {
        let opts = ReadOptions::new().with_max_depth(1);
        let mut b = Builder::new(Tree::default(), opts);
        b.begin(Open::Array(TypeInfo::None), 0).unwrap();
        b.begin(Open::Array(TypeInfo::None), 1).unwrap();
        let e = b.leaf(Variant::Nil, 2).unwrap_err();
        assert_eq!(
            (e.offset, e.message.as_str()),
            (2, "nested deeper than 1 levels")
        );

        let mut b = Builder::new(Tree::default(), ReadOptions::new());
        let e = b.begin(Open::Object("Node".into()), 0).unwrap_err();
        assert!(e.message.starts_with("a full object is not allowed"));

        let mut b = Builder::new(Tree::default(), ReadOptions::new().with_full_objects(true));
        b.begin(Open::Object("Node".into()), 0).unwrap();
        b.property("script".into(), 1).unwrap();
        let e = b.leaf("user://a.gd".into(), 2).unwrap_err();
        assert_eq!(e.message, SCRIPT_RULE);
    }
}
