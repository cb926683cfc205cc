//! The schema file: what a game's scripts declare (node path patterns, their `@rpc` methods and
//! call modes, Godot 3 `rset` properties, synchronizers' properties), one line per node or
//! synchronizer, read by
//! [`StaticSchema::parse`] (decoding sessions: the CLI's `--schema`) and by the server's
//! `ServerSchema::parse`. The format is described in `docs/schema-file.md`.
//!
//! ```text
//! rpc     PATH-PATTERN METHOD[@OPTION,...]... [native METHOD...]
//! rset    PATH-PATTERN PROPERTY@MODE[,TRANSFER]...
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

/// One Godot 3 property of an `rset` line: its name, whether a client may set it on the server
/// (`remote`, `remotesync`, `master`, `mastersync`; `puppet`, `puppetsync`: the server only),
/// and the transfer mode the server sets it with (`reliable` unless given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RsetProperty<'a> {
    pub(crate) name: &'a str,
    pub(crate) any_peer: bool,
    pub(crate) transfer: Transfer,
}

/// One line of the file.
#[derive(Clone, Debug)]
// Without the server, the lines for properties and client spawners are checked, not used.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub(crate) enum Entry<'a> {
    Rpc {
        pattern: &'a str,
        methods: Vec<Method<'a>>,
        /// Configured with `Node.rpc_config`.
        native: Vec<Method<'a>>,
    },
    Rset {
        pattern: &'a str,
        properties: Vec<RsetProperty<'a>>,
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
    /// A spawner whose multiplayer authority is a client: the peer `{id}` in its pattern names
    /// (`peer` `None`), or `peer`.
    Spawner { pattern: &'a str, peer: Option<i32> },
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
            "rset" => {
                let pattern = f.next().ok_or_else(|| at("rset needs a path".into()))?;
                let properties = f
                    .map(rset_property)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(&at)?;
                if properties.is_empty() {
                    return Err(at("rset needs at least one PROPERTY@MODE".into()));
                }
                Entry::Rset {
                    pattern,
                    properties,
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
            "spawner" => {
                let pattern = f.next().ok_or_else(|| at("spawner needs a path".into()))?;
                let peer =
                    match f.next() {
                        None if pattern.contains("{id}") => None,
                        None => return Err(at(
                            "spawner needs a peer id, or {id} in its path for the peer named there"
                                .into(),
                        )),
                        Some(w) => {
                            Some(w.parse::<i32>().ok().filter(|&p| p >= 2).ok_or_else(|| {
                                at(format!("'{w}': a client's peer id, 2 or more"))
                            })?)
                        }
                    };
                if let Some(w) = f.next() {
                    return Err(at(format!("'{w}': spawner takes a path and a peer id")));
                }
                Entry::Spawner { pattern, peer }
            }
            other => {
                return Err(at(format!(
                    "unknown entry '{other}' (rpc, rset, sync, spawned, spawner)"
                )))
            }
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

/// `NAME@MODE[,TRANSFER]`: a Godot 3 `rset` property with the keyword of its declaration
/// (`remote var hp` is `hp@remote`), and the transfer mode the server sets it with.
fn rset_property(word: &str) -> Result<RsetProperty<'_>, String> {
    let Some((name, options)) = word.split_once('@') else {
        return Err(format!(
            "'{word}': PROPERTY@MODE, the keyword of its declaration (remote, remotesync, \
             master, mastersync, puppet, puppetsync)"
        ));
    };
    if name.is_empty() {
        return Err(format!("'{word}': a property name before '@'"));
    }
    let (mut any_peer, mut transfer) = (None, None);
    for o in options.split(',') {
        let (slot, value) = match o {
            // `sync` is 3.0's `remotesync`, `slave` its `puppet`.
            "remote" | "remotesync" | "sync" | "master" | "mastersync" => (0, true),
            "puppet" | "puppetsync" | "slave" => (0, false),
            "reliable" | "unreliable" | "unreliable_ordered" => (1, false),
            _ => {
                return Err(format!(
                    "'{word}': '{o}' is not an rset option (remote, remotesync, master, \
                     mastersync, puppet, puppetsync; reliable, unreliable, unreliable_ordered)"
                ))
            }
        };
        let taken = if slot == 0 {
            any_peer.replace(value).is_some()
        } else {
            let t = match o {
                "unreliable" => Transfer::Unreliable,
                "unreliable_ordered" => Transfer::UnreliableOrdered,
                _ => Transfer::Reliable,
            };
            transfer.replace(t).is_some()
        };
        if taken {
            let what = if slot == 0 { "mode" } else { "transfer mode" };
            return Err(format!("'{word}': more than one {what}"));
        }
    }
    Ok(RsetProperty {
        name,
        any_peer: any_peer.ok_or_else(|| {
            format!(
                "'{word}': no mode (remote, remotesync, master, mastersync, puppet, puppetsync)"
            )
        })?,
        transfer: transfer.unwrap_or(Transfer::Reliable),
    })
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
    /// `@` options are the server's business), the properties of `sync` and `spawned` lines;
    /// `rset` lines (Godot 3 properties, which its packets name in full) and `spawner` lines (the
    /// server's business) are checked and skipped.
    ///
    /// ```
    /// use gdvariant_multiplayer::{Schema, StaticSchema};
    /// let s = StaticSchema::parse("rpc Players/* jump@any_peer,unreliable shoot # a comment\n")?;
    /// assert_eq!(s.rpc_methods("Players/7").unwrap().name(1), Some("shoot"));
    /// let e = StaticSchema::parse("rpc Main echo\nsnyc Main/Sync\n").unwrap_err();
    /// assert_eq!(e.to_string(), "line 2: unknown entry 'snyc' (rpc, rset, sync, spawned, spawner)");
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
                Entry::Rset { .. } | Entry::Spawner { .. } => schema,
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
    use crate::session::Schema;

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
    fn rset_properties_take_godot_3_keywords() {
        let Entry::Rset {
            pattern,
            properties,
        } = entries("rset /root/Main color@remote score@puppet,unreliable hp@mastersync")
            .unwrap()
            .remove(0)
        else {
            panic!("not an rset entry")
        };
        assert_eq!(pattern, "/root/Main");
        let got: Vec<(&str, bool, Transfer)> = properties
            .iter()
            .map(|p| (p.name, p.any_peer, p.transfer))
            .collect();
        assert_eq!(
            got,
            [
                ("color", true, Transfer::Reliable),
                ("score", false, Transfer::Unreliable),
                ("hp", true, Transfer::Reliable),
            ]
        );
        for (word, any_peer) in [
            ("x@remotesync", true),
            ("x@sync", true),
            ("x@master", true),
            ("x@puppetsync", false),
            ("x@slave", false),
            ("x@unreliable_ordered,puppet", false),
        ] {
            assert_eq!(rset_property(word).unwrap().any_peer, any_peer, "{word}");
        }
        for (word, error) in [
            ("color", "'color': PROPERTY@MODE, the keyword"),
            ("@remote", "'@remote': a property name before '@'"),
            ("x@reliable", "'x@reliable': no mode"),
            ("x@remote,puppet", "'x@remote,puppet': more than one mode"),
            (
                "x@remote,reliable,unreliable",
                "'x@remote,reliable,unreliable': more than one transfer mode",
            ),
            ("x@remote,2", "'x@remote,2': '2' is not an rset option"),
            (
                "x@any_peer",
                "'x@any_peer': 'any_peer' is not an rset option",
            ),
            ("x@", "'x@': '' is not an rset option"),
        ] {
            let e = rset_property(word).unwrap_err();
            assert!(e.starts_with(error), "{word}: {e}");
        }
    }

    #[test]
    fn rset_errors_name_the_line() {
        let e = entries("rpc Main echo@any_peer\n\n# props\nrset Main color@remote score\n")
            .unwrap_err();
        assert_eq!(e.line(), 4);
        assert!(e.message().starts_with("'score': PROPERTY@MODE"), "{e}");
        let e = entries("rset Main a@remote\nrset\n").unwrap_err();
        assert_eq!(e.to_string(), "line 2: rset needs a path");
        let e = entries("rset Main\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 1: rset needs at least one PROPERTY@MODE"
        );
        let e = entries("rset Main a@remote,fast # comment\n").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("line 1: 'a@remote,fast': 'fast' is not"));
        // Skipped when decoding.
        let s = StaticSchema::parse("rset Main a@remote\nrpc Main echo\n").unwrap();
        assert_eq!(s.rpc_methods("Main").unwrap().name(0), Some("echo"));
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
