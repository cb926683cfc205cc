//! What the server listens on and how it treats its clients: the configuration and the
//! command line that sets it.

use std::net::SocketAddr;
use std::time::Duration;

use gdvariant::Dialect;

/// What the server listens on and how it treats its clients.
#[derive(Clone, Debug)]
pub struct Config {
    /// The TCP (`StreamPeerTCP`) address.
    pub tcp: SocketAddr,
    /// The WebSocket address, if any.
    pub ws: Option<SocketAddr>,
    /// The clients' dialect (a Godot 3 client needs `Dialect::Godot3`).
    pub dialect: Dialect,
    /// The largest value accepted or sent.
    pub max_frame: usize,
    /// How long a frame (a WebSocket message: all its fragments) may take from its first byte,
    /// and a reply to be taken by the client.
    pub frame_timeout: Duration,
    /// How long a connection may send nothing at all.
    pub idle_timeout: Duration,
    /// Connections served at once, TCP and WebSocket together; more are closed at once.
    pub max_connections: usize,
    /// Bytes received for frames and messages not yet complete, over every connection.
    pub memory_budget: usize,
    /// Malformed values in a row after which a client is dropped.
    pub max_malformed: u32,
    /// Log every connection and disconnection (drops are always logged).
    pub verbose: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            tcp: SocketAddr::from(([127, 0, 0, 1], 4242)),
            ws: None,
            dialect: Dialect::Godot4,
            max_frame: gdvariant::framing::DEFAULT_MAX_FRAME,
            frame_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
            memory_budget: 256 << 20,
            max_malformed: 16,
            verbose: false,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Tcp,
    Ws,
}

const USAGE: &str = "usage: server [--tcp ADDR] [--ws ADDR] [--dialect 4|3] [--max-frame BYTES] \
[--frame-timeout SECS] [--idle-timeout SECS] [--max-connections N] [--memory-budget BYTES] \
[--max-malformed N] [--threads N] [--verbose]";

/// Seconds, more than 0.
fn seconds(name: &str, v: &str) -> Result<Duration, String> {
    let s: f64 = v.parse().map_err(|e| format!("{name}: {e}"))?;
    if !(s > 0.0 && s < 1e6) {
        return Err(format!("{name}: seconds, more than 0"));
    }
    Ok(Duration::from_secs_f64(s))
}

pub(crate) fn parse_args() -> Result<(Config, usize), String> {
    let mut cfg = Config::default();
    let mut threads = 0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--tcp" => cfg.tcp = val("--tcp")?.parse().map_err(|e| format!("--tcp: {e}"))?,
            "--ws" => cfg.ws = Some(val("--ws")?.parse().map_err(|e| format!("--ws: {e}"))?),
            "--dialect" => {
                cfg.dialect = match val("--dialect")?.as_str() {
                    "4" => Dialect::Godot4,
                    "3" => Dialect::Godot3,
                    d => return Err(format!("--dialect: 3 or 4, not {d}")),
                }
            }
            "--max-frame" => {
                cfg.max_frame = val("--max-frame")?
                    .parse()
                    .map_err(|e| format!("--max-frame: {e}"))?
            }
            "--frame-timeout" => {
                cfg.frame_timeout = seconds("--frame-timeout", &val("--frame-timeout")?)?
            }
            "--idle-timeout" => {
                cfg.idle_timeout = seconds("--idle-timeout", &val("--idle-timeout")?)?
            }
            "--max-connections" => {
                cfg.max_connections = val("--max-connections")?
                    .parse()
                    .map_err(|e| format!("--max-connections: {e}"))?;
                if cfg.max_connections == 0 {
                    return Err("--max-connections: at least 1".into());
                }
            }
            "--memory-budget" => {
                cfg.memory_budget = val("--memory-budget")?
                    .parse()
                    .map_err(|e| format!("--memory-budget: {e}"))?
            }
            "--max-malformed" => {
                cfg.max_malformed = val("--max-malformed")?
                    .parse()
                    .map_err(|e| format!("--max-malformed: {e}"))?
            }
            "--threads" => {
                threads = val("--threads")?
                    .parse()
                    .map_err(|e| format!("--threads: {e}"))?
            }
            "--verbose" => cfg.verbose = true,
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok((cfg, threads))
}
