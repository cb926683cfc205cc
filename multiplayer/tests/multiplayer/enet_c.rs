//! The range coder against ENet's own C: the system's ENet 1.3.17 (Debian's `libenet-dev`,
//! installed by `tests/godot/install.sh`), whose `compress.c` is the file Godot 3.x ships in
//! `thirdparty/enet/` (upstream's `compress.c` has not changed since 2010, and Godot's patches to
//! ENet leave it alone), so what Godot 3.4+ peers compress with.
//!
//! A small C harness (below, compiled with the system's `cc` and linked with `-lenet`; no build
//! dependency of the crate) runs `enet_range_coder_compress` / `enet_range_coder_decompress` on
//! records read from stdin, each in a forked child so that hostile input that crashes or hangs
//! ENet's C is reported as such. Checked on the captures' datagrams (real Godot 4 and Godot 3
//! multiplayer traffic), random and structured inputs, empty, 1-byte, 4 KiB and larger, and
//! incompressible ones:
//!
//! (a) what the server compresses with (`rusty_enet`'s range coder, the crate's ENet) is byte for
//! byte what ENet's C writes, with both output limits (room to spare, and the input's size, as an
//! ENet host asks); (b) the crate's decompressor reads ENet's C output back to the input, and
//! refuses it one byte short of room, as ENet does; (c) ENet's C decompresses what the server
//! compresses; (d) on mutants of those streams and random garbage, the crate's decompressor never
//! panics and decodes what ENet's C decodes, refuses what it refuses, and refuses what makes it
//! crash or hang.
//!
//! Without `cc` or without ENet's headers and library, the tests say so loudly and pass.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use gdvariant_multiplayer::enet::protocol::MAXIMUM_MTU;
use gdvariant_multiplayer::enet::range_coder::RangeDecoder;
use rusty_enet::{Compressor, RangeCoder};

use crate::enet::{coder_inputs, Rng};

/// The harness: records `op` (`c` compress, `d` decompress), `limit` (the output limit, u32 LE),
/// `len` (u32 LE) and `len` bytes; answers `status` (0: ENet returned; 1: the child crashed or
/// timed out), `n` (u32 LE, what ENet returned) and the `n` bytes it wrote.
const HARNESS: &str = r#"
#include <enet/enet.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int read_full(int fd, unsigned char *b, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r <= 0) return got == 0 && r == 0 ? 0 : -1;
        got += (size_t) r;
    }
    return 1;
}

static int write_full(int fd, const unsigned char *b, size_t n) {
    while (n > 0) {
        ssize_t r = write(fd, b, n);
        if (r <= 0) return -1;
        b += r;
        n -= (size_t) r;
    }
    return 0;
}

static uint32_t le32(const unsigned char *b) {
    return b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}

static void put32(unsigned char *b, uint32_t v) {
    b[0] = v; b[1] = v >> 8; b[2] = v >> 16; b[3] = v >> 24;
}

int main(void) {
    void *coder = enet_range_coder_create();
    if (coder == NULL) return 2;
    for (;;) {
        unsigned char head[9];
        int r = read_full(0, head, 9);
        if (r == 0) break;
        if (r < 0) return 3;
        uint32_t limit = le32(head + 1), len = le32(head + 5);
        unsigned char *in = malloc(len + 1), *out = malloc(limit + 1);
        if (in == NULL || out == NULL || read_full(0, in, len) < 0) return 4;
        int pipes[2];
        if (pipe(pipes) != 0) return 5;
        pid_t pid = fork();
        if (pid < 0) return 6;
        if (pid == 0) {
            close(pipes[0]);
            alarm(5);
            size_t n;
            if (head[0] == 'c') {
                ENetBuffer buffer;
                buffer.data = in;
                buffer.dataLength = len;
                n = enet_range_coder_compress(coder, &buffer, 1, len, out, limit);
            } else {
                n = enet_range_coder_decompress(coder, in, len, out, limit);
            }
            unsigned char nb[4];
            put32(nb, (uint32_t) n);
            if (write_full(pipes[1], nb, 4) || write_full(pipes[1], out, n)) _exit(1);
            _exit(0);
        }
        close(pipes[1]);
        unsigned char nb[4];
        uint32_t n = 0;
        int ok = read_full(pipes[0], nb, 4) == 1;
        if (ok) {
            n = le32(nb);
            ok = n <= limit && (n == 0 || read_full(pipes[0], out, n) == 1);
        }
        close(pipes[0]);
        int status;
        if (waitpid(pid, &status, 0) != pid) return 7;
        ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
        unsigned char answer[5];
        answer[0] = ok ? 0 : 1;
        put32(answer + 1, ok ? n : 0);
        if (write_full(1, answer, 5) || (ok && write_full(1, out, n))) return 8;
        free(in);
        free(out);
    }
    enet_range_coder_destroy(coder);
    return 0;
}
"#;

/// The harness, compiled once; `None` (said loudly) without `cc` or ENet's C.
fn harness() -> Option<&'static PathBuf> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = crate::common::scratch_dir("enet-c");
            let (src, exe) = (dir.join("harness.c"), dir.join("harness"));
            std::fs::write(&src, HARNESS).unwrap();
            let skip = |why: String| {
                eprintln!(
                    "!!!!!! SKIPPED: the range coder against ENet's own C: {why} \
                     (bash tests/godot/install.sh installs libenet-dev) !!!!!!"
                );
                None
            };
            let out = match Command::new("cc")
                .args(["-O2", "-o"])
                .arg(&exe)
                .arg(&src)
                .arg("-lenet")
                .output()
            {
                Ok(out) => out,
                Err(e) => return skip(format!("no C compiler (cc: {e})")),
            };
            if !out.status.success() {
                return skip(format!(
                    "cc could not build the harness against ENet (libenet-dev missing?): {}",
                    String::from_utf8_lossy(&out.stderr)
                        .lines()
                        .next()
                        .unwrap_or("")
                ));
            }
            Some(exe)
        })
        .as_ref()
}

/// What ENet's C did with one record.
#[derive(Debug, PartialEq, Eq)]
enum C {
    /// It returned this many bytes (0: refused), written here.
    Returned(Vec<u8>),
    /// It crashed or did not finish within 5 s.
    Died,
}

/// A running harness.
struct Enet {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
}

impl Enet {
    fn start() -> Option<Enet> {
        let mut child = Command::new(harness()?)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
        Some(Enet {
            child,
            stdin,
            stdout,
        })
    }

    fn run(&mut self, op: u8, limit: usize, input: &[u8]) -> C {
        use std::io::Read;
        let mut record = vec![op];
        record.extend_from_slice(&(limit as u32).to_le_bytes());
        record.extend_from_slice(&(input.len() as u32).to_le_bytes());
        record.extend_from_slice(input);
        self.stdin.write_all(&record).unwrap();
        self.stdin.flush().unwrap();
        let mut head = [0u8; 5];
        self.stdout.read_exact(&mut head).unwrap();
        let n = u32::from_le_bytes(head[1..5].try_into().unwrap()) as usize;
        let mut out = vec![0; n];
        self.stdout.read_exact(&mut out).unwrap();
        match head[0] {
            0 => C::Returned(out),
            _ => C::Died,
        }
    }

    fn compress(&mut self, input: &[u8], limit: usize) -> C {
        self.run(b'c', limit, input)
    }

    fn decompress(&mut self, input: &[u8], limit: usize) -> C {
        self.run(b'd', limit, input)
    }
}

impl Drop for Enet {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the server compresses with (`rusty_enet`'s range coder) into `limit` bytes; empty when
/// it does not fit (ENet's 0).
fn ours_compress(coder: &mut RangeCoder, input: &[u8], limit: usize) -> Vec<u8> {
    let mut out = vec![0; limit];
    let n = coder.compress(&[input], input.len(), &mut out);
    out.truncate(n);
    out
}

/// The inputs: `coder_inputs` (the captures' datagrams, random bytes over small and large
/// alphabets, runs, text, long streams) and the edges: empty, every 1-byte value, 4 KiB and
/// 64 KiB incompressible, a long stream over 3 symbols.
fn inputs() -> Vec<Vec<u8>> {
    let mut v = coder_inputs();
    v.push(Vec::new());
    v.extend((0..=255u8).map(|b| vec![b]));
    let mut rng = Rng(0x5eed_c0de);
    v.push(rng.bytes(4096, 256));
    v.push(rng.bytes(4097, 256));
    v.push(rng.bytes(65_536, 256));
    v.push(rng.bytes(10_000, 3));
    v
}

#[test]
fn range_coder_matches_enets_c_byte_for_byte() {
    let Some(mut c) = Enet::start() else {
        return;
    };
    let mut coder = RangeCoder::new();
    let mut dec = RangeDecoder::new();
    let (mut compared, mut compressed, mut too_big) = (0, 0, 0);
    for input in inputs() {
        // Room to spare, and the input's own size (what an ENet host offers: it sends a
        // datagram compressed only when that is smaller).
        for limit in [input.len() * 2 + 64, input.len()] {
            let C::Returned(theirs) = c.compress(&input, limit) else {
                panic!("ENet's C died compressing {} bytes", input.len());
            };
            let ours = ours_compress(&mut coder, &input, limit);
            assert_eq!(
                ours,
                theirs,
                "(a) {} bytes into {limit}: the server's compression differs from ENet's C",
                input.len()
            );
            compared += 1;
            if theirs.is_empty() {
                too_big += 1;
                continue;
            }
            compressed += 1;
            // (b) The crate reads ENet's C output back; one byte short of room, it refuses.
            assert_eq!(
                dec.decompress(&theirs, input.len()).as_deref().ok(),
                Some(&input[..]),
                "(b) {} bytes",
                input.len()
            );
            if !input.is_empty() {
                assert!(dec.decompress(&theirs, input.len() - 1).is_err());
                assert_eq!(
                    c.decompress(&theirs, input.len() - 1),
                    C::Returned(Vec::new())
                );
            }
            // (c) ENet's C reads what the server compressed.
            assert_eq!(
                c.decompress(&ours, input.len().max(1)),
                C::Returned(input.clone()),
                "(c) {} bytes",
                input.len()
            );
        }
    }
    println!(
        "range coder vs ENet's C: {compared} compressions byte for byte ({compressed} fit, \
         {too_big} did not fit their limit), each read back by both"
    );
    assert!(compressed > 300 && too_big > 100, "{compressed} {too_big}");
}

#[test]
fn hostile_streams_are_refused_as_enets_c_refuses_them() {
    let Some(mut c) = Enet::start() else {
        return;
    };
    let mut coder = RangeCoder::new();
    let mut dec = RangeDecoder::new();
    let mut rng = Rng(0x0405_711e);
    let streams: Vec<Vec<u8>> = coder_inputs()
        .iter()
        .filter(|i| (1..=1500).contains(&i.len()))
        .map(|i| ours_compress(&mut coder, i, i.len() * 2 + 64))
        .filter(|s| !s.is_empty())
        .collect();
    let mut mutants: Vec<Vec<u8>> = Vec::new();
    for packed in streams.iter().step_by(2) {
        for at in (0..packed.len()).step_by(2) {
            for v in [packed[at] ^ (1 << (rng.next() % 8)), rng.next() as u8] {
                let mut m = packed.clone();
                m[at] = v;
                mutants.push(m);
            }
            mutants.push(packed[..at].to_vec());
        }
        let mut grown = packed.clone();
        grown.extend(rng.bytes(16, 256));
        mutants.push(grown);
    }
    for n in 0..400 {
        mutants.push(rng.bytes(n % 64, if n % 3 == 0 { 4 } else { 256 }));
    }
    let (mut same, mut refused, mut died) = (0, 0, 0);
    for m in &mutants {
        // A panic here fails the test: hostile input must not panic.
        let ours = dec.decompress(m, MAXIMUM_MTU);
        match (c.decompress(m, MAXIMUM_MTU), ours) {
            (C::Returned(t), Ok(o)) if !t.is_empty() => {
                assert_eq!(o, t, "(d) {}", crate::common::hex(m));
                same += 1;
            }
            // ENet returns 0 for an empty input, nothing decoded or an overflow: the crate
            // refuses, or decodes nothing.
            (C::Returned(_), Ok(o)) => {
                assert!(
                    o.is_empty(),
                    "(d) ENet refused, this decoded: {}",
                    crate::common::hex(m)
                );
                refused += 1;
            }
            (C::Returned(t), Err(e)) => {
                assert!(
                    t.is_empty(),
                    "(d) ENet decoded {} bytes, this refused ({e}): {}",
                    t.len(),
                    crate::common::hex(m)
                );
                refused += 1;
            }
            (C::Died, r) => {
                assert!(
                    r.is_err(),
                    "(d) ENet's C died, this decoded: {}",
                    crate::common::hex(m)
                );
                died += 1;
            }
        }
    }
    println!(
        "{} hostile streams: {same} decoded alike, {refused} refused by both, {died} that kill \
         ENet's C refused",
        mutants.len()
    );
    assert!(same > 1000 && refused > 500, "{same} {refused} {died}");
}
