//! Adversarial inputs of a chosen size, shared by the scaling tests (`tests/read/scaling.rs`) and
//! the resource table (`cli/benches/resources.rs`): each generator makes about `n` bytes of input
//! whose cost a careless implementation would make grow faster than the input (deep nesting times
//! width, keys that hash or compare badly, long escapes, huge numbers, counts that claim more than
//! the input holds).
#![allow(dead_code)]

/// Little-endian u32.
fn u32le(x: u32) -> [u8; 4] {
    x.to_le_bytes()
}

/// A Godot 4 String value.
fn string(out: &mut Vec<u8>, s: &[u8]) {
    out.extend_from_slice(&u32le(4));
    out.extend_from_slice(&u32le(s.len() as u32));
    out.extend_from_slice(s);
    out.resize(out.len().next_multiple_of(4), 0);
}

/// About `n` bytes nested `depth` levels: at each level an Array holding the next level first,
/// then ints and a short string (every iterator has to get past its container child).
pub fn deep_wide(n: usize, depth: usize) -> Vec<u8> {
    let width = (n / depth).saturating_sub(20) / 8;
    let mut out = Vec::new();
    let mut tails = Vec::new();
    for d in 0..depth {
        let last = d + 1 == depth;
        out.extend_from_slice(&u32le(28));
        out.extend_from_slice(&u32le((width + 1 + usize::from(!last)) as u32));
        let mut tail = Vec::new();
        for i in 0..width {
            tail.extend_from_slice(&u32le(2));
            tail.extend_from_slice(&u32le(i as u32));
        }
        string(&mut tail, b"abc");
        tails.push(tail);
    }
    for tail in tails.iter().rev() {
        out.extend_from_slice(tail);
    }
    out
}

/// A Dictionary of about `n` bytes whose keys are made by `key(i)`, values Nil.
fn dict(n: usize, key: impl Fn(&mut Vec<u8>, usize)) -> Vec<u8> {
    let mut body = Vec::new();
    let mut count = 0;
    while body.len() < n {
        key(&mut body, count);
        body.extend_from_slice(&u32le(0));
        count += 1;
    }
    let mut out = Vec::new();
    out.extend_from_slice(&u32le(27));
    out.extend_from_slice(&u32le(count as u32));
    out.extend(body);
    out
}

/// Dictionaries nested as keys of dictionaries, `n / 512` levels up to 1000 (so that depth and
/// size double together below half a MiB; the depth limit is 1024): at each level 7 `Int: Nil` entries, an empty Dictionary as a key, then the next
/// level as a key (9 entries: the reader's hash index; two container keys: the printers'
/// repeated-key check compares them), a `Nil` value for each; a PackedByteArray of about `n / 2`
/// bytes at the bottom. Hashing or copying each level's key whole costs depth x size.
pub fn keys_in_keys(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let depth = (n / 512).min(1000);
    for _ in 0..depth {
        out.extend_from_slice(&u32le(27));
        out.extend_from_slice(&u32le(9));
        for j in 0..7 {
            out.extend_from_slice(&u32le(2));
            out.extend_from_slice(&u32le(j));
            out.extend_from_slice(&u32le(0));
        }
        out.extend_from_slice(&u32le(27));
        out.extend_from_slice(&u32le(0));
        out.extend_from_slice(&u32le(0));
    }
    let bottom = n / 2;
    out.extend_from_slice(&u32le(29));
    out.extend_from_slice(&u32le(bottom as u32));
    out.extend((0..bottom).map(|i| i as u8));
    out.resize(out.len().next_multiple_of(4), 0);
    for _ in 0..depth {
        out.extend_from_slice(&u32le(0));
    }
    out
}

/// The binary inputs (Godot 4), about `n` bytes each.
pub fn binary(n: usize) -> Vec<(&'static str, Vec<u8>)> {
    let mut records = Vec::new();
    let mut count = 0u32;
    while records.len() < n {
        records.extend_from_slice(&u32le(27));
        records.extend_from_slice(&u32le(2));
        string(&mut records, b"id");
        records.extend_from_slice(&u32le(2));
        records.extend_from_slice(&u32le(count));
        string(&mut records, b"name");
        string(&mut records, format!("entity_{count}").as_bytes());
        count += 1;
    }
    let mut flat = Vec::new();
    flat.extend_from_slice(&u32le(28));
    flat.extend_from_slice(&u32le(count));
    flat.extend(records);

    let mut escapes = Vec::new();
    let mut k = 0u32;
    let mut body = Vec::new();
    while body.len() < n {
        string(&mut body, "\"\\\n\u{1}'é\"".repeat(16).as_bytes());
        k += 1;
    }
    escapes.extend_from_slice(&u32le(28));
    escapes.extend_from_slice(&u32le(k));
    escapes.extend(body);

    let mut floats = Vec::new();
    floats.extend_from_slice(&u32le(35)); // PackedFloat64Array
    let m = n / 8;
    floats.extend_from_slice(&u32le(m as u32));
    for i in 0..m {
        floats.extend_from_slice(&(1.0 / (i as f64 + 3.0) * 1e-7).to_le_bytes());
    }

    // A PackedInt32Array claiming 2^31 - 1 elements, holding n bytes.
    let mut claim = Vec::new();
    claim.extend_from_slice(&u32le(30));
    claim.extend_from_slice(&u32le(i32::MAX as u32));
    claim.resize(n, 0);

    // n / 8 nested Arrays: refused past the depth limit.
    let mut too_deep = Vec::new();
    for _ in 0..n / 8 {
        too_deep.extend_from_slice(&[28, 0, 0, 0, 1, 0, 0, 0]);
    }

    vec![
        ("deep (1000 levels) x wide", deep_wide(n, 1000)),
        ("flat records", flat),
        (
            "equal-prefix keys",
            dict(n, |b, i| {
                string(b, format!("{}{i}", "k".repeat(200)).as_bytes())
            }),
        ),
        (
            "NodePath keys",
            dict(n, |b, i| {
                // ^"a/b<i>": one name "a", one "b<i>", relative.
                b.extend_from_slice(&u32le(22));
                b.extend_from_slice(&u32le(0x8000_0002));
                b.extend_from_slice(&u32le(0));
                b.extend_from_slice(&u32le(0));
                let mut s = Vec::new();
                string(&mut s, b"a");
                b.extend_from_slice(&s[4..]);
                let mut s = Vec::new();
                string(&mut s, format!("b{i}").as_bytes());
                b.extend_from_slice(&s[4..]);
            }),
        ),
        ("repeated keys", dict(n, |b, _| string(b, b"a"))),
        ("strings to escape", escapes),
        ("floats", floats),
        ("claimed count 2^31-1", claim),
        ("nested past the limit", too_deep),
        (
            "dictionaries as keys, n/512 deep (up to 1000)",
            keys_in_keys(n),
        ),
    ]
}

/// The engine-text inputs, about `n` bytes each.
pub fn text(n: usize) -> Vec<(&'static str, String)> {
    let zeros = format!("[{}0]", "0,".repeat(n / 2));
    let deep = "[".repeat(n);
    let mut np = String::from("{");
    let mut prefix = String::from("{");
    let mut i = 0;
    while np.len() < n {
        np.push_str(&format!("^\"a/b{i}\": 0, "));
        i += 1;
    }
    np.push('}');
    i = 0;
    while prefix.len() < n {
        prefix.push_str(&format!("\"{}{i}\": 0, ", "k".repeat(200)));
        i += 1;
    }
    prefix.push('}');
    let escapes = format!("\"{}\"", "\\u0041\\n\\\"".repeat(n / 10));
    let number = "9".repeat(n);
    let float = format!("1.{}", "9".repeat(n));
    // Dictionaries nested 500 deep, each repeating its key: the repeated ones' values are
    // dropped, whole sub-trees included.
    let mut dups = String::new();
    let per = (n / 500).max(20);
    for _ in 0..500 {
        dups.push_str("{\"a\": [");
        dups.push_str(&"1, ".repeat(per / 3));
        dups.push_str("0], \"a\": ");
    }
    dups.push_str("null");
    dups.push_str(&"}".repeat(500));
    vec![
        ("[0, 0, ...]", zeros),
        ("nested past the limit", deep),
        ("NodePath keys", np),
        ("equal-prefix keys", prefix),
        ("long escapes", escapes),
        ("huge integer", number),
        ("huge float", float),
        ("repeated keys nested 500 deep", dups),
        (
            "dictionaries as keys, n/512 deep (up to 1000)",
            keys_in_keys_as(n, gdvariant::text::to_string),
        ),
    ]
}

/// The JSON inputs, about `n` bytes each.
pub fn json(n: usize) -> Vec<(&'static str, String)> {
    let zeros = format!("[{}0]", "0,".repeat(n / 2));
    let deep = "[".repeat(n);
    let mut np = String::from("{\"$Dictionary\": [");
    let mut prefix = String::from("{");
    let mut i = 0;
    while np.len() < n {
        np.push_str(&format!("[{{\"$NodePath\": \"a/b{i}\"}}, 0], "));
        i += 1;
    }
    np.push_str("[0, 0]]}");
    i = 0;
    while prefix.len() < n {
        prefix.push_str(&format!("\"{}{i}\": 0, ", "k".repeat(200)));
        i += 1;
    }
    prefix.push_str("\"end\": 0}");
    let escapes = format!("\"{}\"", "\\u0041\\n\\\"".repeat(n / 10));
    let number = "9".repeat(n);
    let float = format!("1.{}", "9".repeat(n));
    // Typed Arrays nested 500 deep, their types given after their elements.
    let per = (n / 500).max(20);
    let mut typed = String::new();
    for _ in 0..500 {
        typed.push_str("{\"$Array\": [");
        typed.push_str(&"1, ".repeat(per / 3));
    }
    typed.push('0');
    typed.push_str(&"], \"$type\": \"Array\"}".repeat(500));
    let mut dups = String::new();
    for _ in 0..500 {
        dups.push_str("{\"a\": [");
        dups.push_str(&"1, ".repeat(per / 3));
        dups.push_str("0], \"a\": ");
    }
    dups.push_str("null");
    dups.push_str(&"}".repeat(500));
    vec![
        ("[0, 0, ...]", zeros),
        ("nested past the limit", deep),
        ("NodePath keys", np),
        ("equal-prefix keys", prefix),
        ("long escapes", escapes),
        ("huge integer", number),
        ("huge float", float),
        ("typed Arrays nested 500 deep", typed),
        ("repeated keys nested 500 deep", dups),
        (
            "dictionaries as keys, n/512 deep (up to 1000)",
            keys_in_keys_as(n, gdvariant::json::to_string),
        ),
    ]
}

/// [`keys_in_keys`] printed by `print`, about `n` bytes (the bottom array's bytes print as up
/// to four characters each).
fn keys_in_keys_as(
    n: usize,
    print: fn(&gdvariant::VariantRef<'_>) -> gdvariant::Result<String>,
) -> String {
    let bytes = keys_in_keys(n / 2);
    print(&gdvariant::parse(&bytes).expect("keys_in_keys reads")).expect("keys_in_keys prints")
}
