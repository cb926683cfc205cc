//! The schema file: what a game's scripts declare (node path patterns, their `@rpc` methods and
//! call modes, synchronizers' properties), one line per node or synchronizer, read by
//! [`StaticSchema::parse`] (decoding sessions: the CLI's `--schema`) and by the server's
//! `ServerSchema::parse`. The format is described in `docs/schema-file.md`.
//!
//! ```text
//! rpc     PATH-PATTERN METHOD[@OPTION,...]... [native METHOD...]
//! sync    PATH-PATTERN PROP=MODE...
//! spawned SPAWNER-PATTERN SCENE INDEX PROP=MODE...
//! ```

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;

use crate::cache::RpcMethods;
use crate::session::{Property, ReplicationMode, StaticSchema};

/// A schema file that does not read: the line (from 1) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    line: usize,
    message: String,
}

impl SchemaError {
    pub(crate) fn new(line: usize, message: impl Into<String>) -> SchemaError {
        SchemaError {
            line,
            message: message.into(),
        }
    }

    /// The line, from 1.
    pub fn line(&self) -> usize {
        self.line
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SchemaError {}

/// `@rpc`'s transfer mode, as the file names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Transfer {
    Unreliable,
    UnreliableOrdered,
    Reliable,
}

/// One `@rpc` method of an `rpc` line, its options filled in with `@rpc`'s defaults
/// (`authority`, `call_remote`, `reliable`, channel 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Method<'a> {
    pub(crate) name: &'a str,
    pub(crate) any_peer: bool,
    pub(crate) call_local: bool,
    pub(crate) transfer: Transfer,
    pub(crate) channel: u8,
}

/// One line of the file.
#[derive(Clone, Debug)]
pub(crate) enum Entry<'a> {
    Rpc {
        pattern: &'a str,
        methods: Vec<Method<'a>>,
        /// Configured with `Node.rpc_config`.
        native: Vec<Method<'a>>,
    },
    Sync {
        pattern: &'a str,
        props: Vec<Property>,
    },
    Spawned {
        spawner: &'a str,
        scene: Option<u8>,
        index: usize,
        props: Vec<Property>,
    },
}

/// The file's entries, in order; the first line that does not read is the error.
pub(crate) fn entries<'a>(text: &'a str) -> Result<Vec<Entry<'a>>, SchemaError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        let mut f = line.split_whitespace();
        let Some(kind) = f.next() else {
            continue;
        };
        let at = |what: String| SchemaError::new(n + 1, what);
        let props = |f: core::str::SplitWhitespace<'_>| {
            f.map(property).collect::<Result<Vec<_>, _>>().map_err(&at)
        };
        out.push(match kind {
            "rpc" => {
                let pattern = f.next().ok_or_else(|| at("rpc needs a path".into()))?;
                let words: Vec<&str> = f.collect();
                let (script, native) = match words.iter().position(|w| *w == "native") {
                    Some(i) => (&words[..i], &words[i + 1..]),
                    None => (&words[..], &[][..]),
                };
                let methods = |words: &[&'a str]| {
                    words
                        .iter()
                        .map(|w| method(w))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(&at)
                };
                Entry::Rpc {
                    pattern,
                    methods: methods(script)?,
                    native: methods(native)?,
                }
            }
            "sync" => {
                let pattern = f.next().ok_or_else(|| at("sync needs a path".into()))?;
                Entry::Sync {
                    pattern,
                    props: props(f)?,
                }
            }
            "spawned" => {
                let spawner = f
                    .next()
                    .ok_or_else(|| at("spawned needs a spawner path".into()))?;
                let scene = match f.next().ok_or_else(|| at("spawned needs a scene".into()))? {
                    "custom" => None,
                    s => Some(
                        s.parse::<u8>()
                            .map_err(|_| at("scene: an index or 'custom'".into()))?,
                    ),
                };
                let index = f
                    .next()
                    .and_then(|s| s.parse::<usize>().ok())
                    .ok_or_else(|| at("spawned needs the synchronizer's index".into()))?;
                Entry::Spawned {
                    spawner,
                    scene,
                    index,
                    props: props(f)?,
                }
            }
            other => return Err(at(format!("unknown entry '{other}' (rpc, sync, spawned)"))),
        });
    }
    Ok(out)
}

/// `NAME` or `NAME@OPTION,...`, the options those of `@rpc` in any order.
fn method(word: &str) -> Result<Method<'_>, String> {
    let (name, options) = match word.split_once('@') {
        Some((n, o)) => (n, Some(o)),
        None => (word, None),
    };
    if name.is_empty() {
        return Err(format!("'{word}': a method name before '@'"));
    }
    let mut m = Method {
        name,
        any_peer: false,
        call_local: false,
        transfer: Transfer::Reliable,
        channel: 0,
    };
    for o in options.into_iter().flat_map(|o| o.split(',')) {
        match o {
            "any_peer" => m.any_peer = true,
            "authority" => m.any_peer = false,
            "call_local" => m.call_local = true,
            "call_remote" => m.call_local = false,
            "reliable" => m.transfer = Transfer::Reliable,
            "unreliable" => m.transfer = Transfer::Unreliable,
            "unreliable_ordered" => m.transfer = Transfer::UnreliableOrdered,
            c => {
                m.channel = c.parse().map_err(|_| {
                    format!(
                        "'{word}': '{o}' is not an @rpc option (any_peer, authority, call_remote, \
                         call_local, reliable, unreliable, unreliable_ordered, a channel 0-255)"
                    )
                })?
            }
        }
    }
    Ok(m)
}

fn property(word: &str) -> Result<Property, String> {
    let (name, mode) = word
        .rsplit_once('=')
        .ok_or_else(|| format!("'{word}': PROPERTY=MODE"))?;
    let (mode, spawn) = match mode.strip_suffix("+spawn") {
        Some(m) => (m, true),
        None => (mode, false),
    };
    let mode = match mode {
        "always" => ReplicationMode::Always,
        "change" => ReplicationMode::OnChange,
        "never" => ReplicationMode::Never,
        _ => return Err(format!("'{word}': mode always, change or never")),
    };
    Ok(Property::new(name, mode, spawn))
}

impl StaticSchema {
    /// Reads a schema file (`docs/schema-file.md`): the method names of each `rpc` line (their
    /// `@` options are the server's business), the properties of `sync` and `spawned` lines.
    ///
    /// ```
    /// use gdvariant_multiplayer::{Schema, StaticSchema};
    /// let s = StaticSchema::parse("rpc Players/* jump@any_peer,unreliable shoot # a comment\n")?;
    /// assert_eq!(s.rpc_methods("Players/7").unwrap().name(1), Some("shoot"));
    /// let e = StaticSchema::parse("rpc Main echo\nsnyc Main/Sync\n").unwrap_err();
    /// assert_eq!(e.to_string(), "line 2: unknown entry 'snyc' (rpc, sync, spawned)");
    /// # Ok::<(), gdvariant_multiplayer::SchemaError>(())
    /// ```
    pub fn parse(text: &str) -> Result<StaticSchema, SchemaError> {
        let mut schema = StaticSchema::new();
        for e in entries(text)? {
            schema = match e {
                Entry::Rpc {
                    pattern,
                    methods,
                    native,
                    ..
                } => {
                    let m = RpcMethods::new(methods.iter().map(|m| m.name))
                        .with_node_methods(native.iter().map(|m| m.name));
                    schema.with_node(pattern.to_string(), m)
                }
                Entry::Sync { pattern, props } => schema.with_synchronizer(pattern, props),
                Entry::Spawned {
                    spawner,
                    scene,
                    index,
                    props,
                } => schema.with_spawned_synchronizer(spawner, scene, index, props),
            };
        }
        Ok(schema)
    }
}

impl FromStr for StaticSchema {
    type Err = SchemaError;

    fn from_str(text: &str) -> Result<StaticSchema, SchemaError> {
        StaticSchema::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_take_rpc_options_in_any_order() {
        let m = method("hit@unreliable_ordered,2,any_peer,call_local").unwrap();
        assert_eq!(
            m,
            Method {
                name: "hit",
                any_peer: true,
                call_local: true,
                transfer: Transfer::UnreliableOrdered,
                channel: 2,
            }
        );
        let d = method("echoed").unwrap();
        assert_eq!(
            (d.any_peer, d.call_local, d.transfer, d.channel),
            (false, false, Transfer::Reliable, 0)
        );
        assert!(method("@any_peer").is_err());
        assert!(method("x@256")
            .unwrap_err()
            .contains("'256' is not an @rpc option"));
        assert!(method("x@any").is_err());
    }

    #[test]
    fn errors_name_the_line() {
        let e = entries("# header\n\nrpc Main echo@any_peer\nrpc Main x@sometimes\n").unwrap_err();
        assert_eq!(e.line(), 4);
        assert!(
            e.message().starts_with("'x@sometimes': 'sometimes' is not"),
            "{e}"
        );
        let e = entries("sync A a=always\nspawned S 300 0 a=always").unwrap_err();
        assert_eq!(e.to_string(), "line 2: scene: an index or 'custom'");
        let e = entries("sync A a=sometimes").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: 'a=sometimes': mode always, change or never"
        );
        assert_eq!(
            entries("rpc").unwrap_err().to_string(),
            "line 1: rpc needs a path"
        );
    }
}
