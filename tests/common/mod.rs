//! Shared helpers of the integration tests, written once: hex, the golden files and the engines'
//! recorded answers, engine discovery (`engine_version`, `engine_ready`, `godot_exe`), scratch
//! directories, files of a directory, threads with a chosen stack, the full lazy walk (`walk`),
//! the fuzz targets' checks (`checks`, `serde_check`), adversarial inputs (`adversarial`) and
//! the counting allocator (`alloc`).
//!
//! Each test binary (`tests/<name>/main.rs`) declares it once, `#[path = "../common/mod.rs"] mod
//! common;`, and its modules `use crate::common;`.
#![allow(dead_code)]

pub mod adversarial;
pub mod alloc;
pub mod checks;
// The core's tests only (the other crates' tests include this module too, without the feature).
#[cfg(feature = "serde")]
pub mod serde_check;
pub mod walk;

use std::path::{Path, PathBuf};

/// Decodes lowercase or uppercase hex; panics on malformed test data.
pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Decodes hex written with whitespace between the bytes (hand-written vectors).
pub fn unhex_spaced(s: &str) -> Vec<u8> {
    let clean: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    unhex(&clean)
}

/// Encodes bytes as lowercase hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The files (not directories) in `dir`, sorted; none when `dir` does not exist.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// A fresh, empty scratch directory `gdvariant-<name>-<pid>` in the system's temporary
/// directory (an engine's `res://` and `HOME`). `name` must be unique among the tests of the
/// binary that may run at the same time: they share the process id. The caller removes it.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gdvariant-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// `scratch_dir` under a name not used before in this process (`<name>-<n>`, `n` counting up
/// from 0): for a helper that tests running at the same time call with the same `name`.
pub fn fresh_scratch_dir(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    scratch_dir(&format!("{name}-{n}"))
}

/// Runs `f` on a thread of its own with a stack of `bytes` bytes; its result (a panic in `f`
/// is a panic here; a stack overflow aborts the process).
pub fn on_stack<R: Send>(bytes: usize, f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(bytes)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .expect("thread panicked (stack overflow would abort instead)")
    })
}

/// Whether `v` holds an Object anywhere (keys included).
pub fn contains_object(v: &gdvariant::Variant) -> bool {
    use gdvariant::Variant;
    match v {
        Variant::Object(_) => true,
        Variant::Array(a) => a.items.iter().any(contains_object),
        Variant::Dictionary(d) => d
            .iter()
            .any(|(k, v)| contains_object(k) || contains_object(v)),
        _ => false,
    }
}

/// The repository's root (the workspace's), whichever of its crates runs the test.
pub fn repo_root() -> PathBuf {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .find(|p| p.join("tests").join("godot").is_dir())
        .unwrap_or(here)
        .to_path_buf()
}

/// The repository's `tests/data` folder.
pub fn data_dir() -> PathBuf {
    repo_root().join("tests").join("data")
}

/// One encode case of an engine: `var_to_bytes` output and `var_to_str` text.
#[derive(Debug, Clone)]
pub struct EncodeCase {
    pub name: String,
    pub objects: bool,
    pub bytes: Vec<u8>,
    pub text: String,
}

/// The engine version line and the cases of `tests/data/<engine>/encode.tsv`.
pub fn encode_cases(engine: &str) -> (String, Vec<EncodeCase>) {
    let path = data_dir().join(engine).join("encode.tsv");
    let content =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut version = String::new();
    let mut cases = Vec::new();
    for line in content.lines() {
        if let Some(rest) = line.strip_prefix("# engine\t") {
            version = rest.to_string();
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 4, "bad line in {}: {line}", path.display());
        cases.push(EncodeCase {
            name: f[0].to_string(),
            objects: f[1] == "objects",
            bytes: unhex(f[2]),
            text: String::from_utf8(unhex(f[3])).expect("utf-8 text"),
        });
    }
    (version, cases)
}

/// One engine decode result: input name, mode, accepted, consumed length, value text.
#[derive(Debug, Clone)]
pub struct DecodeResult {
    pub name: String,
    pub objects: bool,
    pub ok: bool,
    pub consumed: Option<usize>,
    pub text: Option<String>,
}

/// The inputs of the decode corpus by name.
pub fn decode_inputs() -> Vec<(String, Vec<u8>)> {
    let content =
        std::fs::read_to_string(data_dir().join("decode_inputs.tsv")).expect("decode_inputs.tsv");
    content
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, h) = l.split_once('\t').unwrap_or((l, ""));
            (name.to_string(), unhex(h.trim()))
        })
        .collect()
}

/// The engine's decode results of `tests/data/<engine>/decode.tsv`.
pub fn decode_results(engine: &str) -> Vec<DecodeResult> {
    let content =
        std::fs::read_to_string(data_dir().join(engine).join("decode.tsv")).expect("decode.tsv");
    content
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            DecodeResult {
                name: f[0].to_string(),
                objects: f[1] == "objects",
                ok: f[2] == "ok",
                consumed: f[3].parse().ok(),
                text: (f[4] != "-").then(|| String::from_utf8_lossy(&unhex(f[4])).into_owned()),
            }
        })
        .collect()
}

/// Golden values the engine itself does not read back as it wrote them: `(engine, case, its own
/// var_to_bytes(bytes_to_var(b)))`, checked live. `to_owned` reads what the engine reads, so
/// these re-encode as the engine's second writing.
pub const ENGINE_REWRITES: &[(&str, &str, &str)] = &[
    // Godot 3 builds a NodePath without names or subnames as the empty path, never absolute.
    ("godot3", "np_root", "0f000000000000800000000000000000"),
    // Godot 4.6's set_typed gives the value type the key's script: an int value type then fails,
    // and the dictionary stays untyped.
    ("godot4", "tdict_script_int_empty_wobj", "1b00000000000000"),
];

/// The bytes the engine writes back for the golden case `name` of `engine` read with `opts`:
/// its own bytes (NodePath padding masked), or its rewriting from [`ENGINE_REWRITES`].
#[allow(dead_code)]
pub fn engine_rewrite(
    engine: &str,
    name: &str,
    bytes: &[u8],
    opts: &gdvariant::ReadOptions,
) -> Vec<u8> {
    match ENGINE_REWRITES
        .iter()
        .find(|(e, n, _)| *e == engine && *n == name)
    {
        Some((_, _, hex)) => unhex(hex),
        None => mask_node_path_padding(bytes, opts),
    }
}

/// A copy of `bytes` (one value of `dialect`) with the padding bytes of every NodePath string
/// zeroed: Godot 3 leaves uninitialised memory there, so comparisons mask it.
pub fn mask_node_path_padding(bytes: &[u8], opts: &gdvariant::ReadOptions) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let v = gdvariant::parse_with(bytes, opts).expect("masking needs a valid value");
    mask_in(v, &mut out);
    out
}

fn mask_in(v: gdvariant::VariantRef<'_>, out: &mut [u8]) {
    use gdvariant::{ObjectRef, VariantType};
    match v.ty() {
        VariantType::NodePath => {
            let raw = v.raw().unwrap();
            let word = |p: usize| u32::from_le_bytes(raw[p..p + 4].try_into().unwrap());
            let mut subs = word(8);
            if word(12) & 2 != 0 {
                subs += 1;
            }
            let mut p = 16;
            for _ in 0..(word(4) & 0x7FFF_FFFF) + subs {
                p += 4 + word(p) as usize;
                while p % 4 != 0 {
                    out[v.offset() + p] = 0;
                    p += 1;
                }
            }
        }
        VariantType::Array => {
            for e in v.as_array().unwrap().iter() {
                mask_in(e.unwrap(), out);
            }
        }
        VariantType::Dictionary => {
            for kv in v.as_dictionary().unwrap().iter() {
                let (k, val) = kv.unwrap();
                mask_in(k, out);
                mask_in(val, out);
            }
        }
        VariantType::Object => {
            if let ObjectRef::Full(f) = v.as_object().unwrap() {
                let mut props = f.properties();
                while let Some((_, val)) = props.try_next().unwrap() {
                    mask_in(val, out);
                }
            }
        }
        _ => {}
    }
}

/// The repository's `tests/godot` folder: the engine wrappers (`godot3`, `godot4`) and the
/// engine scripts.
pub fn godot_dir() -> PathBuf {
    repo_root().join("tests").join("godot")
}

/// The wrapper that runs Godot `n` (3, 4, or 36 for Godot 3.6): `godot{n} DIR SCRIPT.gd` (see
/// `tests/godot`).
pub fn godot_exe(n: u32) -> PathBuf {
    godot_dir().join(format!("godot{n}"))
}

/// The version Godot `n` (3, 4, or 36 for Godot 3.6) prints, or `None` when it does not run here
/// (then a loud notice that the live `what` is skipped). Panics when `GDVARIANT_LIVE_GODOT{n}=1`
/// (CI sets it) requires the engine and it does not run.
pub fn engine_version(n: u32, what: &str) -> Option<String> {
    let name = if n == 36 {
        "3.6".to_string()
    } else {
        n.to_string()
    };
    let version = std::process::Command::new(godot_exe(n))
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            let out = String::from_utf8_lossy(&o.stdout);
            out.trim().lines().last().map(str::to_string)
        })
        .filter(|v| !v.is_empty());
    let required = std::env::var(format!("GDVARIANT_LIVE_GODOT{n}")).is_ok_and(|v| v == "1");
    if version.is_none() {
        assert!(
            !required,
            "GDVARIANT_LIVE_GODOT{n}=1 but Godot {name} does not run (tests/godot/install.sh)"
        );
        eprintln!("\n!!!!!! Godot {name} is not installed: {what} SKIPPED (run tests/godot/install.sh) !!!!!!\n");
    }
    version
}

/// Whether Godot `n` runs here; see [`engine_version`].
pub fn engine_ready(n: u32, what: &str) -> bool {
    engine_version(n, what).is_some()
}
