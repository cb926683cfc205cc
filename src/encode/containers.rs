//! Container heads (Array, Dictionary, full Object: header, type info, count), raw values
//! written as they are, and the Godot 4 `script` rule.

use super::primitives::Enc;
use crate::error::{Error, ErrorKind, Result};
use crate::owned::TypeInfo;
use crate::reader::Reader;
use crate::types::{Dialect, ReadOptions, VariantType, MAX_DEPTH_LIMIT};

/// The class name `var_to_bytes` writes for class- and script-typed containers.
const ENCODED_OBJECT_AS_ID: &str = "EncodedObjectAsID";

impl Enc<'_> {
    /// A container's type info entry (kind already in the header).
    fn type_info(&mut self, t: &TypeInfo) -> Result<()> {
        match t {
            TypeInfo::None => Ok(()),
            TypeInfo::Builtin(ty) => {
                // Container type ids are Godot 4 ids (typed containers exist only there).
                let id = Dialect::Godot4.id_of(*ty).unwrap_or(0);
                self.u32(id);
                Ok(())
            }
            TypeInfo::ClassName(s) | TypeInfo::Script(s) => {
                if self.opts.full_objects {
                    self.string(s)
                } else {
                    self.string(ENCODED_OBJECT_AS_ID)
                }
            }
        }
    }

    /// The kind bits of a type info as written: class and script typing become class
    /// `EncodedObjectAsID` without full objects, as the engine writes them.
    #[inline]
    fn kind(&self, t: &TypeInfo) -> u32 {
        match t {
            TypeInfo::Script(_) if !self.opts.full_objects => 2,
            t => t.kind(),
        }
    }

    fn untyped_only(&self, ty: VariantType) -> Error {
        Error::new(ErrorKind::UnsupportedInDialect { ty }, self.pos())
    }

    /// Header, type info and count of an Array.
    pub(crate) fn array_head(&mut self, t: &TypeInfo, count: usize) -> Result<usize> {
        if matches!(t, TypeInfo::None) {
            return self.untyped_head(VariantType::Array, count);
        }
        self.container_head(VariantType::Array, &[t], count)
    }

    /// Header, type info and count of a Dictionary; returns where the count sits in `out`.
    pub(crate) fn dict_head(
        &mut self,
        kt: &TypeInfo,
        vt: &TypeInfo,
        count: usize,
    ) -> Result<usize> {
        if matches!((kt, vt), (TypeInfo::None, TypeInfo::None)) {
            return self.untyped_head(VariantType::Dictionary, count);
        }
        self.container_head(VariantType::Dictionary, &[kt, vt], count)
    }

    /// Header and count of an untyped container (nearly all of them), as
    /// [`container_head`](Enc::container_head) writes them; returns where the count sits.
    #[inline]
    fn untyped_head(&mut self, ty: VariantType, count: usize) -> Result<usize> {
        let n = self.len32(count)?;
        let id = self.id(ty)?;
        let at = self.out.len() + 4;
        self.u64(u64::from(id) | u64::from(n) << 32);
        Ok(at)
    }

    /// Header (kind bits 16-17, then 18-19), type info entries and count of a container; returns
    /// where the count sits in `out`. On error `out` is left as it was.
    fn container_head(
        &mut self,
        ty: VariantType,
        types: &[&TypeInfo],
        count: usize,
    ) -> Result<usize> {
        let start = self.out.len();
        if self.opts.dialect == Dialect::Godot3 && types.iter().any(|t| **t != TypeInfo::None) {
            return Err(self.untyped_only(ty));
        }
        let n = self.len32(count)?;
        let res = (|| {
            let flags = types
                .iter()
                .enumerate()
                .fold(0, |f, (k, t)| f | (self.kind(t) << (16 + 2 * k)));
            self.header(ty, flags)?;
            types.iter().try_for_each(|t| self.type_info(t))
        })();
        if let Err(e) = res {
            self.out.truncate(start);
            return Err(e);
        }
        let at = self.out.len();
        self.u32(n);
        Ok(at)
    }

    /// Header, class name and property count of a full object (the class is not empty);
    /// returns where the count sits in `out`.
    pub(crate) fn object_head(&mut self, class: &str, count: usize) -> Result<usize> {
        if !self.opts.full_objects {
            return Err(Error::new(ErrorKind::ObjectsNotAllowed, self.pos()));
        }
        let start = self.out.len();
        let n = self.len32(count)?;
        let res = (|| {
            self.header(VariantType::Object, 0)?;
            self.string(class)
        })();
        if let Err(e) = res {
            self.out.truncate(start);
            return Err(e);
        }
        let at = self.out.len();
        self.u32(n);
        Ok(at)
    }

    /// Appends already-encoded bytes of the dialect `dialect`, at depth `self.depth`: they must
    /// hold exactly one value that [`validate`](crate::validate_with) accepts with the
    /// encoder's options (depth limit counted from here, object policy, the `script` rule), or
    /// nothing is written.
    pub(crate) fn raw(&mut self, bytes: &[u8], dialect: Dialect) -> Result<()> {
        if dialect != self.opts.dialect {
            return Err(Error::new(
                ErrorKind::WriterMisuse {
                    what: "raw value encoded in the other dialect",
                },
                self.pos(),
            ));
        }
        let ropts = self.read_options();
        let mut r = Reader::new(bytes, self.pos());
        crate::walker::validate_at(&mut r, self.depth as u32, &ropts)?;
        if r.pos() != bytes.len() {
            return Err(Error::new(
                ErrorKind::WriterMisuse {
                    what: "raw value with bytes after the value",
                },
                r.offset(),
            ));
        }
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    /// The reader's options that accept exactly what these encoder options write.
    fn read_options(&self) -> ReadOptions {
        ReadOptions::new()
            .with_dialect(self.opts.dialect)
            .with_max_depth(self.opts.max_depth)
            .with_full_objects(self.opts.full_objects)
    }

    /// The Godot 4 rule on a full object's `script` property (the one the reader applies:
    /// Nil, or a String holding a `res://` path), on the value just written at `start` in
    /// `out`.
    pub(crate) fn check_script_at(&self, start: usize) -> Result<()> {
        let bytes = self.out.get(start..).unwrap_or(&[]);
        let mut r = Reader::new(bytes, start - self.base);
        let h = crate::head::head(
            &mut r,
            0,
            &self.read_options().with_max_depth(MAX_DEPTH_LIMIT),
            false,
        )?;
        crate::head::check_script(h)
    }

    /// Whether a property named `name` is the Godot 4 `script` property, as the reader decides:
    /// every string is written to read back as itself, so the name is compared as it is.
    #[inline]
    pub(crate) fn is_script(&self, name: &str) -> bool {
        self.opts.dialect == Dialect::Godot4 && name == "script"
    }
}
