//! [`Builder`]: the checks every reader makes, in front of a [`Sink`].

use std::string::String;
use std::vec::Vec;

use super::sink::{fail, Kind, Open, Sink, R};
use crate::owned::{Object, TypeInfo, Variant};
use crate::types::{Dialect, ReadOptions};

/// The checks every reader makes, in front of a [`Sink`].
pub(crate) struct Builder<S> {
    pub(crate) sink: S,
    opts: ReadOptions,
    /// The open containers, with (for a Dictionary) whether a key comes next.
    open: Vec<(Kind, bool)>,
    /// Whether the next value is a Godot 4 object's `script` property.
    script: bool,
}

/// The message of a value nested too deep.
fn too_deep(limit: u32) -> String {
    format!("nested deeper than {limit} levels")
}

/// Whether a property named `name` is the Godot 4 `script` property. The writers write every
/// string so that it reads back as itself (a leading BOM is kept by a second one, a NUL is
/// refused), so the name is compared as it is.
fn is_script(name: &str, dialect: Dialect) -> bool {
    dialect == Dialect::Godot4 && name == "script"
}

/// Whether a script path, as written, is a `res://` path to `validate`.
fn is_res_path(path: &str) -> bool {
    path.starts_with("res://")
}

#[cfg_attr(not(feature = "std"), allow(dead_code))]
impl<S: Sink> Builder<S> {
    pub(crate) fn new(sink: S, opts: ReadOptions) -> Builder<S> {
        Builder {
            sink,
            opts,
            open: Vec::new(),
            script: false,
        }
    }

    /// The options the checks follow.
    pub(crate) fn options(&self) -> &ReadOptions {
        &self.opts
    }

    /// Whether the innermost open container is a Dictionary waiting for a key.
    pub(crate) fn wants_key(&self) -> bool {
        matches!(self.open.last(), Some((Kind::Dict, true)))
    }

    fn depth(&self, at: usize) -> R<usize> {
        let d = self.open.len();
        if d > self.opts.max_depth() as usize {
            return fail(at, too_deep(self.opts.max_depth()));
        }
        Ok(d)
    }

    /// A value is complete in its container: a Dictionary alternates keys and values.
    fn advance(&mut self) {
        if let Some((Kind::Dict, key)) = self.open.last_mut() {
            *key = !*key;
        }
    }

    fn check_type(&self, t: &TypeInfo, at: usize) -> R {
        if let TypeInfo::Script(p) = t {
            // With objects allowed the engine loads the script: validate wants a res:// path.
            if self.opts.full_objects() && !is_res_path(p) {
                return fail(
                    at,
                    "a container's script type must be a res:// path when objects are allowed",
                );
            }
        }
        Ok(())
    }

    fn check_typed(&self, what: &str, typed: bool, at: usize) -> R {
        if typed && self.opts.dialect() == Dialect::Godot3 {
            return fail(
                at,
                format!("a typed {what} cannot be written in the Godot 3 dialect"),
            );
        }
        Ok(())
    }

    pub(crate) fn leaf(&mut self, v: Variant, at: usize) -> R {
        let depth = self.depth(at)?;
        let d = self.opts.dialect();
        if d.id_of(v.ty()).is_none() {
            return fail(
                at,
                format!("a {} cannot be written in the {d} dialect", v.ty().name()),
            );
        }
        if let Variant::Object(o) = &v {
            if let Object::Full { class, properties } = &**o {
                if !properties.is_empty() {
                    // Readers send full objects with properties as containers.
                    return fail(at, "an Object with properties must be read as a container");
                }
                if !class.is_empty() {
                    self.begin(Open::Object(class.clone()), at)?;
                    return self.end(at);
                }
            }
        }
        if core::mem::take(&mut self.script) {
            let ok = match &v {
                Variant::Nil => true,
                // Both encode as Nil.
                Variant::Object(o) => matches!(&**o, Object::Id(0) | Object::Full { .. }),
                Variant::String(s) => is_res_path(s),
                _ => false,
            };
            if !ok {
                return fail(at, SCRIPT_RULE);
            }
        }
        self.sink.leaf(v, depth, at)?;
        self.advance();
        Ok(())
    }

    pub(crate) fn begin(&mut self, c: Open, at: usize) -> R {
        let depth = self.depth(at)?;
        if core::mem::take(&mut self.script) {
            return fail(at, SCRIPT_RULE);
        }
        let kind = match &c {
            Open::Array(t) => {
                self.check_typed("Array", *t != TypeInfo::None, at)?;
                self.check_type(t, at)?;
                Kind::Array
            }
            Open::Dict { key, value, .. } => {
                let typed = *key != TypeInfo::None || *value != TypeInfo::None;
                self.check_typed("Dictionary", typed, at)?;
                self.check_type(key, at)?;
                self.check_type(value, at)?;
                Kind::Dict
            }
            Open::Object(class) => {
                if !self.opts.full_objects() {
                    return fail(
                        at,
                        "a full object is not allowed (objects are not enabled: with_full_objects, --allow-objects)",
                    );
                }
                if class.is_empty() {
                    return fail(at, "an Object needs a class name");
                }
                Kind::Object
            }
        };
        self.sink.begin(c, depth, at)?;
        self.open.push((kind, true));
        Ok(())
    }

    pub(crate) fn property(&mut self, name: String, at: usize) -> R {
        self.script = is_script(&name, self.opts.dialect());
        self.sink.property(name, at)
    }

    pub(crate) fn set_types(&mut self, key: TypeInfo, value: TypeInfo, at: usize) -> R {
        let what = match self.open.last() {
            Some((Kind::Dict, _)) => "Dictionary",
            _ => "Array",
        };
        let typed = key != TypeInfo::None || value != TypeInfo::None;
        self.check_typed(what, typed, at)?;
        self.check_type(&key, at)?;
        self.check_type(&value, at)?;
        self.sink.set_types(key, value, at)
    }

    pub(crate) fn keep_all(&mut self, at: usize) -> R {
        self.sink.keep_all(at)
    }

    pub(crate) fn end(&mut self, at: usize) -> R {
        if let Some((Kind::Dict, false)) = self.open.last() {
            return fail(at, "a key without a value");
        }
        self.sink.end(at)?;
        self.open.pop();
        self.advance();
        Ok(())
    }
}

pub(super) const SCRIPT_RULE: &str = "an Object's script property must be null or a res:// path";
