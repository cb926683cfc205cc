//! [`Tree`]: the [`Sink`] that builds an owned [`Variant`].

use std::string::String;
use std::vec::Vec;

use super::sink::{Open, Sink, R};
use crate::owned::{Array, Dictionary, Object, TypeInfo, Variant};
use crate::types::Dialect;

enum Building {
    Array {
        items: Vec<Variant>,
        ty: TypeInfo,
    },
    Dict {
        entries: Vec<(Variant, Variant)>,
        types: (TypeInfo, TypeInfo),
        key: Option<Variant>,
        merge: Option<Dialect>,
    },
    Object {
        class: String,
        props: Vec<(String, Variant)>,
        name: String,
    },
}

/// Builds an owned [`Variant`].
#[derive(Default)]
pub(crate) struct Tree {
    stack: Vec<Building>,
    done: Option<Variant>,
}

impl Tree {
    /// The complete top-level value, taken.
    pub(crate) fn take(&mut self) -> Option<Variant> {
        self.done.take()
    }

    fn put(&mut self, v: Variant) {
        match self.stack.last_mut() {
            None => self.done = Some(v),
            Some(Building::Array { items, .. }) => items.push(v),
            Some(Building::Dict { entries, key, .. }) => match key.take() {
                None => *key = Some(v),
                Some(k) => entries.push((k, v)),
            },
            Some(Building::Object { props, name, .. }) => {
                props.push((core::mem::take(name), v));
            }
        }
    }
}

impl Sink for Tree {
    fn leaf(&mut self, v: Variant, _depth: usize, _at: usize) -> R {
        self.put(v);
        Ok(())
    }

    fn begin(&mut self, c: Open, _depth: usize, _at: usize) -> R {
        self.stack.push(match c {
            Open::Array(ty) => Building::Array {
                items: Vec::new(),
                ty,
            },
            Open::Dict { key, value, merge } => Building::Dict {
                entries: Vec::new(),
                types: (key, value),
                key: None,
                merge,
            },
            Open::Object(class) => Building::Object {
                class,
                props: Vec::new(),
                name: String::new(),
            },
        });
        Ok(())
    }

    fn property(&mut self, n: String, _at: usize) -> R {
        if let Some(Building::Object { name, .. }) = self.stack.last_mut() {
            *name = n;
        }
        Ok(())
    }

    fn set_types(&mut self, k: TypeInfo, v: TypeInfo, _at: usize) -> R {
        match self.stack.last_mut() {
            Some(Building::Array { ty, .. }) => *ty = k,
            Some(Building::Dict { types, .. }) => *types = (k, v),
            _ => {}
        }
        Ok(())
    }

    fn keep_all(&mut self, _at: usize) -> R {
        if let Some(Building::Dict { merge, .. }) = self.stack.last_mut() {
            *merge = None;
        }
        Ok(())
    }

    fn end(&mut self, _at: usize) -> R {
        let v = match self.stack.pop() {
            Some(Building::Array { items, ty }) => Variant::Array(Array::typed(ty, items)),
            Some(Building::Dict {
                entries,
                types,
                merge,
                ..
            }) => Variant::Dictionary(match merge {
                Some(rule) => {
                    let mut d = Dictionary::typed(types.0, types.1, Vec::new());
                    for (k, v) in entries {
                        d.insert_with(rule, k, v);
                    }
                    d
                }
                None => Dictionary::typed(types.0, types.1, entries),
            }),
            Some(Building::Object { class, props, .. }) => Variant::from(Object::Full {
                class,
                properties: props,
            }),
            None => return Ok(()),
        };
        self.put(v);
        Ok(())
    }
}
